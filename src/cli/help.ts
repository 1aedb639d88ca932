/**
 * Help text as a terminal shows it: no line wider than HELP_COLUMNS. Option tables are written with one line per
 * option; a description too long for the line is wrapped here, its continuation lines under the description's
 * first column (or under column 26 when the option itself is long), so that every command's help fits 80
 * columns whatever its authors wrote.
 */

/** The widest help line, in columns (a terminal's default width). */
export const HELP_COLUMNS = 80;

/** Where a wrapped option description continues when the option's own column is too far right. */
const DESCRIPTION_COLUMN = 26;

/**
 * `text` with every block that has a line wider than `columns` filled again: an option line and the lines that
 * continue its description (indented, not an option), or a paragraph of prose (lines at the left margin). Blocks
 * that fit are left as their author wrote them.
 */
export function wrapHelp(text: string, columns: number = HELP_COLUMNS): string {
  const lines = text.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; ) {
    const head = lines[i]!;
    const isOption = /^\s+-/.test(head);
    const isProse = /^\S/.test(head);
    let end = i + 1;
    if (isOption) while (end < lines.length && /^\s{6,}\S/.test(lines[end]!) && !/^\s+-/.test(lines[end]!)) end++;
    else if (isProse) while (end < lines.length && /^\S/.test(lines[end]!) && !/:$/.test(lines[end - 1]!)) end++;
    const block = lines.slice(i, end);
    i = end;
    if (block.every((l) => width(l) <= columns) || !(isOption || isProse)) {
      out.push(...block.map((l) => (width(l) <= columns ? l : hardWrap(l, columns))));
      continue;
    }
    let lead = '';
    let indent = 0;
    if (isOption) {
      const m = /^(\s+-\S.*?\s{2,})\S/.exec(head);
      lead = m !== null ? m[1]! : head.length > DESCRIPTION_COLUMN && head[DESCRIPTION_COLUMN - 1] === ' ' ? head.slice(0, DESCRIPTION_COLUMN) : /^\s*/.exec(head)![0];
      indent = lead.length <= 40 ? lead.length : DESCRIPTION_COLUMN;
    }
    const words = [head.slice(lead.length), ...block.slice(1)].map((l) => l.trim()).join(' ').split(/ +/);
    out.push(...fill(lead, words, indent, columns));
  }
  return out.join('\n');
}

function width(line: string): number {
  return [...line].length;
}

/** Words after `lead`, filled to `columns`, continuation lines indented by `indent`. */
function fill(lead: string, words: readonly string[], indent: number, columns: number): string[] {
  const out: string[] = [];
  let current = lead;
  let fresh = true;
  for (const word of words) {
    const candidate = fresh ? current + word : `${current} ${word}`;
    if (!fresh && width(candidate) > columns) {
      out.push(current);
      current = ' '.repeat(indent) + word;
    } else current = candidate;
    fresh = false;
  }
  out.push(current);
  return out;
}

/** A line of no known form (an example, say), broken at spaces with its own indent and two more. */
function hardWrap(line: string, columns: number): string {
  const lead = /^\s*/.exec(line)![0];
  return fill(lead, line.slice(lead.length).split(' '), lead.length + 2, columns).join('\n');
}
