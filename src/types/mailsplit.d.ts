// The parts of mailsplit 5.4 (and of libbase64 / libqp, which it uses) that src/mime relies on. The packages
// ship no types.
declare module 'mailsplit' {
  import type { Transform } from 'node:stream';

  // The objects a Splitter emits are described in src/mime/mailsplit-objects.ts (a module of ours, so that the
  // package's declaration files, which name them, need no declaration of mailsplit).

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
