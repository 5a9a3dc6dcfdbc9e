// s3rver ships no types: the part the scale-out harness uses.
declare module 's3rver' {
  export default class S3rver {
    constructor(options: {
      readonly address?: string;
      readonly port?: number;
      readonly directory: string;
      readonly silent?: boolean;
      readonly configureBuckets?: readonly { readonly name: string }[];
    });
    run(): Promise<{ readonly address: string; readonly port: number }>;
    close(): Promise<void>;
  }
}
