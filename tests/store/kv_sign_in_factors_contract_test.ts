/** The sign-in factors port's contract on Deno KV (one process owns the file: races on one handle). */
import { KvSignInFactors } from "../../src/store/kv/sign_in_factors.ts";
import { freshKv } from "./contract/_kv.ts";
import { signInFactorsContract } from "./contract/sign_in_factors.ts";

signInFactorsContract("Deno KV", async () => {
  const { kv, close } = await freshKv();
  return { port: new KvSignInFactors(kv), close };
});
