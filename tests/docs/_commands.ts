/**
 * The commands README.md and docs/*.md print for a user, and what a machine with only Node.js can
 * do with each (tests/docs/printed_commands_test.ts runs them).
 *
 * Extraction rule:
 * - Fenced blocks: `sh`, `bash`, `shell`, `console` or no language are shell; `text` is output;
 *   any other language is code and not read. In a shell block every line is a command, unless the
 *   block has `$ ` prompt lines: then only those are (the rest is output), as in a text block.
 *   A line ending in `\`, `|`, `&&` or `||` goes on; a ` # comment` is dropped.
 * - Inline code outside fences, per paragraph (a span may wrap lines).
 * - A line or span is a command when one of its shell segments (split at `|`, `||`, `&&`, `;`,
 *   `$(`), after `NAME=value` assignments, starts with `npx -y deno@`, `deno ` or `sealpost `.
 *   `deno <word>` alone (`deno bundle`, `deno test`) names a Deno tool and is not a command.
 *
 * A bare `deno …` or `sealpost …` command does not run where only Node.js is: it is an error,
 * unless its paragraph (for a block, the paragraph just before it) says "with Deno installed",
 * or the page says so of itself in a `<!-- printed commands: with Deno installed -->` comment (a
 * page about a server it sets up with Deno and a `sealpost` launcher, such as docs/deploy.md).
 * What runs is `npx -y deno@PINNED …`; which of those the test runs and which it skips, and why,
 * is {@link verdict}.
 *
 * @module
 */

/** One command as printed. */
export interface DocCommand {
  file: string;
  line: number;
  /** The command: continuation lines joined, the prompt and a trailing comment dropped. */
  text: string;
  /** The fenced block it is in (commands of one block run as one script), or null inline. */
  block: DocBlock | null;
  /** Its paragraph says "with Deno installed": a bare `deno`/`sealpost` command is allowed. */
  withDeno: boolean;
}

/** A fenced shell block: the script the test runs for its commands. */
export interface DocBlock {
  file: string;
  line: number;
  /** The lines to run: every line, or only the `$ ` lines (prompt dropped) of a console block. */
  script: string;
}

const SHELL = new Set(["", "sh", "bash", "shell", "console"]);
const OUTPUT = new Set(["text", "txt", "plain"]);
const WITH_DENO = /with Deno installed/i;
const PAGE_WITH_DENO = /<!-- printed commands: with Deno installed -->/;

/** Every command of one markdown file, in document order. */
export function extractCommands(file: string, markdown: string): DocCommand[] {
  if (PAGE_WITH_DENO.test(markdown)) {
    return extractCommands(file, markdown.replace(PAGE_WITH_DENO, ""))
      .map((command) => ({ ...command, withDeno: true }));
  }
  const lines = markdown.split("\n");
  const out: DocCommand[] = [];
  let paragraph: { start: number; lines: string[] } = { start: 0, lines: [] };
  const flushParagraph = () => {
    out.push(...inlineCommands(file, paragraph.start, paragraph.lines));
    paragraph = { start: 0, lines: [] };
  };
  let lastParagraph = "";
  for (let i = 0; i < lines.length; i++) {
    const fence = /^\s*(```|~~~)\s*([\w-]*)/.exec(lines[i]);
    if (!fence) {
      if (lines[i].trim() === "") {
        if (paragraph.lines.length) lastParagraph = paragraph.lines.join(" ");
        flushParagraph();
      } else {
        if (paragraph.lines.length === 0) paragraph.start = i + 1;
        paragraph.lines.push(lines[i]);
      }
      continue;
    }
    // The paragraph that introduces the block: the one right before it.
    const intro = paragraph.lines.length ? paragraph.lines.join(" ") : lastParagraph;
    flushParagraph();
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !lines[i].trim().startsWith(fence[1]); i++) body.push(lines[i]);
    lastParagraph = "";
    const lang = fence[2].toLowerCase();
    if (!SHELL.has(lang) && !OUTPUT.has(lang)) continue;
    const prompted = body.some((l) => /^\s*\$ /.test(l));
    if (!prompted && OUTPUT.has(lang)) continue;
    const logical = logicalLines(body, start + 2, prompted);
    const block: DocBlock = {
      file,
      line: start + 1,
      script: logical.map((l) => l.raw.split("\n").map(dropComment).join("\n")).join("\n"),
    };
    for (const { text, line } of logical) {
      if (isCommand(text)) {
        out.push({ file, line, text, block, withDeno: WITH_DENO.test(intro) });
      }
    }
  }
  flushParagraph();
  return out;
}

/** A block's lines joined into commands (`raw` keeps the continuations, for the script). */
function logicalLines(body: string[], firstLine: number, prompted: boolean) {
  const result: { text: string; raw: string; line: number }[] = [];
  for (let i = 0; i < body.length; i++) {
    let raw = body[i];
    if (prompted) {
      if (!/^\s*\$ /.test(raw)) continue;
      raw = raw.replace(/^\s*\$ /, "");
    }
    const line = firstLine + i;
    while (/(\\|\||&&)\s*$/.test(dropComment(raw)) && i + 1 < body.length) raw += `\n${body[++i]}`;
    const text = raw.split("\n").map((part) => dropComment(part).replace(/\\\s*$/, "").trim())
      .join(" ");
    if (text) result.push({ text, raw, line });
  }
  return result;
}

function dropComment(line: string): string {
  return line.trimStart().startsWith("#") ? "" : line.replace(/\s+#(\s.*)?$/, "");
}

/** The inline code spans of a paragraph that are commands. */
function inlineCommands(file: string, start: number, lines: string[]): DocCommand[] {
  const text = lines.join("\n");
  const withDeno = WITH_DENO.test(lines.join(" "));
  const found: DocCommand[] = [];
  for (const match of text.matchAll(/`([^`]+)`/g)) {
    const span = match[1].replace(/\s*\n\s*/g, " ").trim();
    if (!isCommand(span)) continue;
    const line = start + text.slice(0, match.index).split("\n").length - 1;
    found.push({ file, line, text: span, block: null, withDeno });
  }
  return found;
}

/** The shell segments of a command line, each with its leading assignments dropped. */
export function segments(text: string): string[] {
  return text.split(/\|\||&&|\||;|\$\(/).map((part) =>
    part.trim().replace(/^\(+/, "").replace(
      /^(?:[A-Za-z_][A-Za-z0-9_]*=(?:'[^']*'|"[^"]*"|\S*)\s+)*/,
      "",
    )
  );
}

function isCommand(text: string): boolean {
  return segments(text).some((s) =>
    s.startsWith("npx -y deno@") || s.startsWith("sealpost ") ||
    (s.startsWith("deno ") && s.split(/\s+/).length > 2)
  );
}

/** What the test does with a command. */
export type Verdict =
  | { kind: "run" }
  | { kind: "skip"; reason: string }
  | { kind: "error"; reason: string };

/** What a printed command needs that this machine has (files and tasks of the repository). */
export interface Repository {
  tasks: string[];
  exists(path: string): boolean;
}

/**
 * Runs, skips (with the rule's reason) or refuses a command. Skip rules, in order:
 * 1. `task start`, `task test`: the README's first block, which `.ci/run` runs as written
 *    (and the banner test here runs `task start`);
 * 2. `task sealpost serve …` and `run -A docs/examples/receiver.ts`: servers that run until
 *    stopped (the banner test starts `serve`; tests/docs/receiver_test.ts runs the receiver);
 * 3. `task sealpost migrate-store …`: needs a PostgreSQL database and a bucket;
 * 4. any other task (check, fuzz, bench, bundle, compile, islands, services): development
 *    tasks of minutes or of services; each must be a task of deno.json;
 * 5. `test …`, `run -A bench/…` and `run -A tests/…`: a test, benchmark or test tool of the
 *    repository (the copy the test runs commands in holds no tests/); the file must exist;
 * 6. a path of a server's folders (`/srv/`, `/backups/`, `/etc/`, `/var/`) or a host that is not
 *    this machine (`https://<…>`, `postgres://`): a deployment's commands.
 * A bare `deno`/`sealpost` command is skipped when marked "with Deno installed", else an error.
 */
export function verdict(command: DocCommand, pinned: string, repo: Repository): Verdict {
  const own = segments(command.text).filter((s) =>
    s.startsWith("npx -y deno@") || s.startsWith("sealpost ") || s.startsWith("deno ")
  );
  for (const segment of own) {
    if (!segment.startsWith("npx ")) {
      return command.withDeno
        ? { kind: "skip", reason: "needs Deno on the PATH (marked: with Deno installed)" }
        : { kind: "error", reason: "a bare deno/sealpost command: not on a Node.js-only machine" };
    }
    const version = /^npx -y deno@(\S+)/.exec(segment)![1];
    if (version !== pinned) {
      return { kind: "error", reason: `runs deno@${version}, not the pinned deno@${pinned}` };
    }
    const rest = segment.replace(/^npx -y deno@\S+\s+/, "").split(/\s+/);
    const skipped = skipRule(rest, repo);
    if (skipped) return skipped;
  }
  if (/(^|\s)\/(srv|backups|etc|var)\//.test(command.text)) {
    return { kind: "skip", reason: "a server's folders (/srv, /backups, /etc, /var)" };
  }
  if (/https:\/\/</.test(command.text) || /postgres:\/\//.test(command.text)) {
    return { kind: "skip", reason: "another host or a database of a deployment" };
  }
  return { kind: "run" };
}

function skipRule(words: string[], repo: Repository): Verdict | null {
  const [sub, ...args] = words;
  if (sub === "task") {
    const name = args.find((a) => !a.startsWith("-"));
    if (name === "start" || name === "test") {
      return { kind: "skip", reason: "the README's two commands, run by .ci/run (and start here)" };
    }
    if (name === "sealpost") {
      const command = args[args.indexOf(name) + 1];
      if (command === "serve") {
        return {
          kind: "skip",
          reason: "a server that runs until stopped (the banner test runs one)",
        };
      }
      if (command === "migrate-store") {
        return { kind: "skip", reason: "needs a PostgreSQL database and a bucket" };
      }
      return null;
    }
    if (!name || !repo.tasks.includes(name)) {
      return { kind: "error", reason: `deno.json has no task "${name}"` };
    }
    return { kind: "skip", reason: "a development task (minutes of work or test services)" };
  }
  if (sub === "test" || (sub === "run" && args.some((a) => /^(bench|tests)\//.test(a)))) {
    const file = args.find((a) => /\.ts$/.test(a));
    if (!file || !repo.exists(file)) return { kind: "error", reason: `no such file: ${file}` };
    return { kind: "skip", reason: "a test, benchmark or test tool of the repository" };
  }
  if (sub === "run" && args.includes("docs/examples/receiver.ts")) {
    return { kind: "skip", reason: "a server that runs until stopped (receiver_test.ts runs it)" };
  }
  return null;
}
