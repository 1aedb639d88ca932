/**
 * What the WARC worker loads before it knows what the records hold (docs/crawls.md, Speed): rewrite-worker.ts and
 * the modules record-job.ts imports for its first job, with every static value import they make (type imports are
 * erased). The MIME rewriters (libmime and its charset tables, ~55 ms of CPU to load) are imported only when a MIME
 * record comes, and the fetch layer never: neither may be in this graph.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/** The relative modules `file` imports or re-exports as values. */
function valueImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/^(?:import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.[^'"]+)['"]/gm)) {
    if (m[1] === undefined) out.push(resolve(dirname(file), m[2]!));
  }
  return out;
}

function graph(roots: string[]): Set<string> {
  const seen = new Set<string>();
  const todo = roots.map((r) => SRC + r);
  while (todo.length > 0) {
    const file = todo.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    todo.push(...valueImports(file));
  }
  return seen;
}

/** The modules record-job.ts imports for its first job (`rewriters ??= Promise.all([import(…), …])`). */
function firstJobImports(): string[] {
  const text = readFileSync(SRC + 'warc/record-job.ts', 'utf8');
  const line = text.split('\n').find((l) => l.includes('rewriters ??='));
  expect(line, 'record-job.ts imports its rewriters in one `rewriters ??=` line').toBeDefined();
  return [...line!.matchAll(/import\('(\.[^']+)'\)/g)].map((m) => resolve(SRC + 'warc', m[1]!).slice(SRC.length));
}

describe('the WARC worker at start', () => {
  const loaded = graph(['warc/rewrite-worker.ts', 'warc/record-job.ts', ...firstJobImports()]);

  test('loads the HTML, CSS and other rewriters', () => {
    expect(firstJobImports()).toEqual(['html/stream.ts', 'http/response-dispatch.ts']);
    for (const m of ['html/stream.ts', 'css/stream.ts', 'kinds/index.ts']) expect(loaded.has(SRC + m), m).toBe(true);
    expect(loaded.size).toBeGreaterThan(40);
  });

  test('loads neither the MIME rewriters nor the fetch layer', () => {
    const names = [...loaded].map((f) => f.slice(SRC.length));
    expect(names.filter((n) => n.startsWith('mime/') || n === 'http/fetch.ts' || n === 'http/response-rewriter.ts')).toEqual([]);
  });

  test('the graph follows value imports only', () => {
    // response-rewriter.ts imports the MIME rewriters as values: the walk finds them from there.
    expect([...graph(['http/response-rewriter.ts'])].some((f) => f === SRC + 'mime/stream.ts')).toBe(true);
  });
});
