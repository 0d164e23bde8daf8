/**
 * The Security page of the signed-in person (`/console/security`): change the password, set up
 * or remove the authenticator app, add (through the passkey island) or remove passkeys, make
 * new recovery codes, and sign out of other sessions. src/people/security.ts makes the changes
 * and writes their audit events; signing out writes `sign_out`.
 *
 * @module
 */
import { type Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { actionBy, type AuditLog } from "../audit/sink.ts";
import { publicBaseUrl } from "../config/index.ts";
import { DomainError } from "../errors/index.ts";
import { httpError } from "../http/errors.ts";
import { relyingParty } from "../people/passkeys.ts";
import type { Security } from "../people/security.ts";
import { totpQrSvg, totpUri } from "../people/totp.ts";
import { type ConsoleDeps, type ConsoleEnv, field, formBody } from "./context.ts";
import { html } from "./layout.tsx";
import { RecoveryCodesPage, SecurityPage, TotpSetupPage } from "./security_page.tsx";

/** Mounts the Security page; `required(personId)`: a second factor is required and missing. */
export function securityRoutes(
  deps: ConsoleDeps,
  security: Security,
  audit: AuditLog,
  required: (personId: string) => Promise<boolean>,
): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  const rp = () => relyingParty(publicBaseUrl(deps.config));
  const back = (c: Context, done: string) =>
    c.redirect(`/console/security?done=${encodeURIComponent(done)}`, 303);

  const page = async (
    c: Context<ConsoleEnv>,
    message: { done?: string; error?: string } = {},
    status: ContentfulStatusCode = 200,
  ) => {
    const session = c.var.session;
    const factors = deps.vault.store.signInFactors;
    const [totp, passkeys, recoveryCodes, sessions] = await Promise.all([
      factors.getTotp(session.personId),
      security.passkeys(session),
      factors.recoveryCodesLeft(session.personId),
      deps.vault.store.sessions.list(session.personId),
    ]);
    return c.html(
      html(
        <SecurityPage
          session={session}
          totp={totp !== null}
          passkeys={passkeys}
          recoveryCodes={recoveryCodes}
          sessions={sessions}
          required={await required(session.personId)}
          {...message}
        />,
      ),
      status,
    );
  };

  /** Runs a change; a refusal in words (wrong password, weak password, …) shows on the page. */
  const change = async (c: Context<ConsoleEnv>, run: () => Promise<Response>) => {
    try {
      return await run();
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      const known = httpError(err)!;
      return await page(c, { error: err.message }, known.status as ContentfulStatusCode);
    }
  };

  app.get("/console/security", (c) => page(c, { done: c.req.query("done") }));

  app.post("/console/security/password", async (c) => {
    const body = await formBody(c);
    const next = String(body.password ?? "");
    if (next !== String(body.confirm ?? "")) {
      return page(c, { error: "The two new passwords differ: type the same one twice." }, 400);
    }
    return change(c, async () => {
      const session = c.var.session;
      await security.changePassword(session, String(body.current ?? ""), next);
      for (const other of await deps.vault.store.sessions.list(session.personId)) {
        if (other.idHash !== session.idHash) {
          await deps.vault.store.sessions.delete(session.personId, other.idHash);
        }
      }
      return back(c, "Password changed. Your other sessions were signed out.");
    });
  });

  app.get("/console/security/totp", async (c) => {
    const session = c.var.session;
    const person = await deps.vault.store.people.get(session.personId);
    const secret = security.newTotpSecret();
    const qrSvg = totpQrSvg(totpUri(secret, person?.email ?? session.personId));
    return c.html(html(<TotpSetupPage session={session} secret={secret} qrSvg={qrSvg} />));
  });

  app.post("/console/security/totp", async (c) => {
    const body = await formBody(c);
    const session = c.var.session;
    const secret = field(body, "secret");
    try {
      const codes = await security.addTotp(session, secret, field(body, "code"));
      if (!codes) return back(c, "The authenticator app is set up.");
      return c.html(html(
        <RecoveryCodesPage
          session={session}
          codes={codes}
          done="The authenticator app is set up."
        />,
      ));
    } catch (err) {
      if (!(err instanceof DomainError) || !/^[A-Z2-7]{32}$/.test(secret)) throw err;
      const person = await deps.vault.store.people.get(session.personId);
      const qrSvg = totpQrSvg(totpUri(secret, person?.email ?? session.personId));
      return c.html(
        html(
          <TotpSetupPage session={session} secret={secret} qrSvg={qrSvg} error={err.message} />,
        ),
        400,
      );
    }
  });

  app.post("/console/security/totp/remove", async (c) => {
    await security.removeTotp(c.var.session);
    return back(c, "The authenticator app was removed.");
  });

  app.post("/console/security/recovery-codes", async (c) => {
    const session = c.var.session;
    const codes = await security.newRecoveryCodes(session);
    return c.html(html(<RecoveryCodesPage session={session} codes={codes} />));
  });

  /** A JSON step of the passkey island: `{…}` or `{ error }` in words. */
  const ceremony = async (c: Context<ConsoleEnv>, run: () => Promise<Record<string, unknown>>) => {
    try {
      return c.json(await run());
    } catch (err) {
      const known = httpError(err);
      if (!known) throw err;
      return c.json({ error: known.body.error.message }, known.status as ContentfulStatusCode);
    }
  };

  app.post(
    "/console/security/passkeys/options",
    (c) => ceremony(c, () => security.passkeyOptions(rp(), c.var.session)),
  );

  app.post("/console/security/passkeys/verify", (c) =>
    ceremony(c, async () => {
      const body = await c.req.json().catch(() => ({}));
      const name = typeof body?.name === "string" ? body.name : "";
      await security.addPasskey(rp(), c.var.session, body?.ticket, body?.response, name);
      return { redirect: "/console/security?done=" + encodeURIComponent("Passkey added.") };
    }));

  app.post("/console/security/passkeys/remove", async (c) => {
    const body = await formBody(c);
    const removed = await security.removePasskey(c.var.session, field(body, "credential"));
    return back(c, removed ? "The passkey was removed." : "That passkey was removed already.");
  });

  app.post("/console/security/sessions/sign-out", async (c) => {
    const session = c.var.session;
    const idHash = field(await formBody(c), "session");
    const mine = (await deps.vault.store.sessions.list(session.personId))
      .some((s) => s.idHash === idHash);
    if (mine) {
      await deps.vault.store.sessions.delete(session.personId, idHash);
      audit.record(actionBy(session, "sign_out", { detail: { sessions: 1 } }));
    }
    return back(c, "That session was signed out.");
  });

  app.post("/console/security/sessions/sign-out-others", async (c) => {
    const session = c.var.session;
    let ended = 0;
    for (const other of await deps.vault.store.sessions.list(session.personId)) {
      if (other.idHash === session.idHash) continue;
      await deps.vault.store.sessions.delete(session.personId, other.idHash);
      ended++;
    }
    audit.record(actionBy(session, "sign_out", { detail: { sessions: ended } }));
    return back(
      c,
      ended === 1 ? "1 other session was signed out." : `${ended} other sessions were signed out.`,
    );
  });

  return app;
}
