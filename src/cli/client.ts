/**
 * The HTTP client behind the management commands: they talk to a running instance, local
 * or remote, with a token from `--token`, `SEALPOST_TOKEN` or the data dir's credentials.
 *
 * @module
 */
import { readCredentials } from "../store/data_dir.ts";

/** Where to reach the instance and with which token. */
export interface ClientOptions {
  url?: string;
  token?: string;
  data?: string;
  /** Which credential of the credentials file to fall back to. */
  role: "admin" | "owner";
}

/** A failed API call: the server's error code, message and the field it names, if any. */
export class ApiCallError extends Error {
  override name = "ApiCallError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

/** A small JSON client of the Sealpost API. */
export class SealpostClient {
  constructor(readonly baseUrl: string, private token: string | null) {}

  /** Whether a token was found (flag, environment or credentials file). */
  get hasToken(): boolean {
    return Boolean(this.token);
  }

  /** Resolves URL and token from flags, environment, then the credentials file. */
  static async resolve(options: ClientOptions): Promise<SealpostClient> {
    const credentials = await readCredentials(
      options.data ?? Deno.env.get("SEALPOST_DATA_DIR") ?? "./data",
    )
      .catch(() => null);
    const url = options.url ?? Deno.env.get("SEALPOST_URL") ?? credentials?.baseUrl ??
      "http://127.0.0.1:8080";
    const fromFile = options.role === "admin" ? credentials?.adminToken : credentials?.ownerToken;
    const token = options.token ?? Deno.env.get("SEALPOST_TOKEN") ?? fromFile ?? null;
    return new SealpostClient(url.replace(/\/+$/, ""), token);
  }

  /** Calls the API; throws {@link ApiCallError} on a non-2xx answer. */
  async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = {};
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    let response: Response;
    try {
      response = await fetch(this.baseUrl + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (err) {
      throw new ApiCallError(
        0,
        "unreachable",
        `Cannot reach ${this.baseUrl}: ${(err as Error).message}`,
      );
    }
    const text = await response.text();
    let data = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      // Not JSON (a proxy's HTML page, say): report the status, and the text when an error.
      if (response.ok) {
        throw new ApiCallError(response.status, "invalid_response", `${path}: not JSON`);
      }
    }
    if (!response.ok) {
      throw new ApiCallError(
        response.status,
        data?.error?.code ?? "http_error",
        data?.error?.message ?? `HTTP ${response.status}: ${text.slice(0, 200)}`,
        typeof data?.error?.field === "string" ? data.error.field : undefined,
      );
    }
    return data as T;
  }
}
