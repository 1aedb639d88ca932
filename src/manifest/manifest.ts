/**
 * The URLs of a web app manifest (https://www.w3.org/TR/appmanifest/), resolved against the manifest's own URL
 * ("processing the manifest": the document URL is used only to check `start_url`'s origin). Each is a JSON string
 * token replaced in place, every other byte kept (the JSON reader of src/html/json-scripts.ts keeps offsets).
 *
 * Members: `start_url`, `scope`, `icons[].src`, `screenshots[].src`, `shortcuts[].url`, `shortcuts[].icons[].src`,
 * `file_handlers[].action` and `.icons[].src`, `share_target.action`, `protocol_handlers[].url`,
 * `note_taking.new_note_url`, `related_applications[].url`, and the legacy `serviceworker.src`.
 * NOTE: `id` is resolved against `start_url`'s origin, not the manifest URL: left as it is, it keeps naming the
 * same app once `start_url` is absolute.
 */
import { parseJsonWithOffsets } from '../html/json-scripts.ts';
import type { JsonStringToken } from '../html/json-scripts.ts';

export interface ManifestUrl extends JsonStringToken {
  /** Where it is, as a JSON path (`icons[0].src`): the link report's `attribute`. */
  readonly member: string;
}

type Node = NonNullable<ReturnType<typeof parseJsonWithOffsets>>;

function member(node: Node | undefined, name: string): Node | undefined {
  return node?.kind === 'object' ? node.members.find((m) => m.key.value === name)?.value : undefined;
}

/** Every URL string of a manifest, in document order; null if it is not valid JSON (left as it is). */
export function findManifestUrls(json: string): ManifestUrl[] | null {
  const root = parseJsonWithOffsets(json);
  if (root === null) return null;
  const out: ManifestUrl[] = [];
  const str = (node: Node | undefined, path: string): void => {
    if (node?.kind === 'string') out.push({ value: node.value, start: node.start, end: node.end, member: path });
  };
  const each = (node: Node | undefined, path: string, f: (item: Node, at: string) => void): void => {
    if (node?.kind === 'array') node.items.forEach((item, i) => f(item, `${path}[${i}]`));
  };
  const icons = (node: Node | undefined, path: string): void => each(node, path, (icon, at) => str(member(icon, 'src'), `${at}.src`));
  str(member(root, 'start_url'), 'start_url');
  str(member(root, 'scope'), 'scope');
  icons(member(root, 'icons'), 'icons');
  icons(member(root, 'screenshots'), 'screenshots');
  each(member(root, 'shortcuts'), 'shortcuts', (s, at) => {
    str(member(s, 'url'), `${at}.url`);
    icons(member(s, 'icons'), `${at}.icons`);
  });
  each(member(root, 'file_handlers'), 'file_handlers', (h, at) => {
    str(member(h, 'action'), `${at}.action`);
    icons(member(h, 'icons'), `${at}.icons`);
  });
  str(member(member(root, 'share_target'), 'action'), 'share_target.action');
  each(member(root, 'protocol_handlers'), 'protocol_handlers', (h, at) => str(member(h, 'url'), `${at}.url`));
  str(member(member(root, 'note_taking'), 'new_note_url'), 'note_taking.new_note_url');
  each(member(root, 'related_applications'), 'related_applications', (a, at) => str(member(a, 'url'), `${at}.url`));
  str(member(member(root, 'serviceworker'), 'src'), 'serviceworker.src');
  return out.sort((a, b) => a.start - b.start);
}
