/** Every case of the differential suite, named by topic. */
import type { Case } from "./case.ts";
import { CHUNKED } from "./chunked.ts";
import { CONTENT_LENGTH } from "./content_length.ts";
import { EXPECT } from "./expect.ts";
import { HEADERS } from "./headers.ts";
import { HOST_CASES } from "./host.ts";
import { HTTP10 } from "./http10.ts";
import { PIPELINING } from "./pipelining.ts";
import { REQUEST_LINE } from "./request_line.ts";
import { TRANSFER_ENCODING } from "./transfer_encoding.ts";

const TOPICS: [string, Case[]][] = [
  ["request line", REQUEST_LINE],
  ["header field", HEADERS],
  ["Host", HOST_CASES],
  ["Content-Length", CONTENT_LENGTH],
  ["Transfer-Encoding", TRANSFER_ENCODING],
  ["chunked", CHUNKED],
  ["pipelining", PIPELINING],
  ["HTTP/1.0", HTTP10],
  ["Expect", EXPECT],
];

/** All cases, each name prefixed by its topic (`chunked: negative size`). */
export const CASES: Case[] = TOPICS.flatMap(([topic, cases]) =>
  cases.map((c) => ({ ...c, name: `${topic}: ${c.name}` }))
);
