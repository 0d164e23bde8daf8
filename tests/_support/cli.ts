/**
 * Runs the real command line (`deno run -A main.ts …`) in a child process.
 */
const MAIN = new URL("../../main.ts", import.meta.url).pathname;

/** Exit code and output of one `sealpost` run. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `sealpost <args>` with the caller's environment minus its `SEALPOST_*` variables
 * (so a developer's shell cannot change a test), plus `env`.
 */
export async function sealpost(
  args: string[],
  env: Record<string, string> = {},
): Promise<CliResult> {
  const inherited = Object.fromEntries(
    Object.entries(Deno.env.toObject()).filter(([key]) => !key.startsWith("SEALPOST_")),
  );
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, ...args],
    clearEnv: true,
    env: { ...inherited, ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
}
