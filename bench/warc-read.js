/**
 * The two readers of the WARC bench's whole-process rows (bench/warc.ts jobs: "absolutize's reader alone",
 * "warcio.js, merely reading"), in plain JavaScript: a process started on bench/warc.ts first spends ~0.1–0.15 s of
 * CPU and ~7,500 page faults stripping its TypeScript, which neither the command (a built bundle) nor warcio.js pays
 * for in use.
 *   node bench/warc-read.js ours FILE     every gzip member inflated and every record parsed (dist/warc/reader.js)
 *   node bench/warc-read.js warcio FILE   every record's content read by warcio.js
 * Prints the record count.
 */
import { createReadStream } from 'node:fs';

const [mode, file] = process.argv.slice(2);
let records = 0;
if (mode === 'ours') {
  const { readWarc } = await import('../dist/warc/reader.js');
  const { DEFAULT_WARC_LIMITS } = await import('../dist/limits.js');
  for await (const unit of readWarc(createReadStream(file, { highWaterMark: 1 << 20 }), DEFAULT_WARC_LIMITS)) records += unit.items.length;
} else if (mode === 'warcio') {
  const { WARCParser } = await import('warcio');
  for await (const record of new WARCParser(createReadStream(file, { highWaterMark: 1 << 20 }))) {
    for await (const _chunk of record) {
      // read, nothing else
    }
    records++;
  }
} else {
  process.stderr.write('usage: node bench/warc-read.js ours|warcio FILE\n');
  process.exit(2);
}
process.stdout.write(`${records}\n`);
