/** The forms port's contract on Deno KV (a fresh store in a temp dir per test). */
import { KvForms } from "../../src/store/kv/forms.ts";
import { formsContract } from "./contract/forms.ts";
import { tempKv } from "./_kv.ts";

formsContract("Deno KV", async () => {
  const { kv, close } = await tempKv();
  return { port: new KvForms(kv), other: new KvForms(kv), close };
});
