// The parts of mailsplit 5.4 (and of libbase64 / libqp, which it uses) that src/mime relies on. The packages
// ship no types.
declare module 'mailsplit' {
  import type { Transform } from 'node:stream';

  export interface MailsplitHeaders {
    getFirst(key: string): string;
    get(key: string): string[];
    update(key: string, value: string): void;
    build(lineEnd?: string): Buffer;
  }

  /** One MIME entity, emitted when its header ends (`type: 'node'`). */
  export interface MimeNode {
    readonly type: 'node';
    readonly root: boolean;
    readonly parentNode: MimeNode | false;
    readonly headers: MailsplitHeaders;
    readonly contentType: string | false;
    readonly charset: string | false;
    readonly encoding: string | false;
    readonly multipart: string | false;
    readonly messageNode?: boolean;
    readonly partNr: string[] | false;
    getHeaders(): Buffer;
  }

  /** Framing (`data`: boundaries, preamble, epilogue) or body bytes (`body`) of a node, a line at a time. */
  export interface MimeChunk {
    readonly type: 'data' | 'body';
    readonly node: MimeNode;
    readonly value: Buffer;
  }

  export interface SplitterOptions {
    readonly maxHeadSize?: number;
    readonly ignoreEmbedded?: boolean;
    readonly defaultInlineEmbedded?: boolean;
  }

  export class Splitter extends Transform {
    constructor(options?: SplitterOptions);
  }

  export class Joiner extends Transform {
    constructor();
  }
}

declare module 'libbase64' {
  const libbase64: {
    encode(buffer: Buffer | string): string;
    decode(str: string): Buffer;
    wrap(str: string, lineLength?: number): string;
  };
  export default libbase64;
}

declare module 'libqp' {
  const libqp: {
    encode(buffer: Buffer | string): string;
    decode(str: string): Buffer;
    wrap(str: string, lineLength?: number): string;
  };
  export default libqp;
}
