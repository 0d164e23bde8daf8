/**
 * The front page's warning about the address published forms carry: a loopback address on a
 * server other machines reach, or plain http on a public name (rules in
 * src/config/address.ts). Plain words, and what to do.
 *
 * @module
 */
import { addressWarning, type Config } from "../config/index.ts";

/** How a listening host reads in a sentence. */
function listening(host: string): string {
  return host === "0.0.0.0" || host === "::" ? `${host} (every network interface)` : host;
}

/**
 * The warning box for forms carrying `address` (the vault's relay address now), or nothing.
 * A vault-role process warns about plain http only: its own listener says nothing about where
 * its relay listens.
 */
export function AddressWarningBox({ config, address }: { config: Config; address: string }) {
  const onRelay = config.server.role === "vault";
  const warning = addressWarning(address, onRelay ? null : config.server.host);
  if (!warning) return null;
  const where = onRelay ? "in the relay's configuration" : "in the configuration";
  if (warning.kind === "loopback") {
    return (
      <section class="flag" aria-labelledby="address-warning">
        <h2 id="address-warning">Other machines cannot reach your forms</h2>
        <p>
          {config.base_url ? "Your forms" : (
            <>
              <code>base_url</code> is not set, so your forms
            </>
          )} send people to{" "}
          <code>{warning.address}</code>, an address only this machine can reach, yet Sealpost
          listens on {listening(warning.listen)} for other machines.
        </p>
        <p>
          Set <code>base_url</code> {where} to the address people use (for example{" "}
          <code>https://forms.example.org</code>) and restart Sealpost: every published form then
          moves to it. See <code>docs/deploy.md</code>.
        </p>
      </section>
    );
  }
  return (
    <section class="flag" aria-labelledby="address-warning">
      <h2 id="address-warning">Your forms travel unencrypted</h2>
      <p>
        Your forms send people to{" "}
        <code>{warning.address}</code>, a public address over plain http. Anyone on the way can read
        the form page and change it, even swap the key answers are sealed to.
      </p>
      <p>
        Serve Sealpost over https (see <code>docs/deploy.md</code>) and set <code>base_url</code>
        {" "}
        {where} to the https address; published forms move to it when Sealpost restarts.
      </p>
    </section>
  );
}
