/** date-holidays' calendar data (its `./data` export), which the package ships without types: the parts read here. */
declare module 'date-holidays/data' {
  interface Day {
    readonly name?: Readonly<Record<string, string>>;
    readonly _name?: string;
  }
  export const data: {
    readonly holidays: Readonly<Record<string, { readonly langs: readonly string[]; readonly days: Readonly<Record<string, Day>> } | undefined>>;
    readonly names: Readonly<Record<string, { readonly name: Readonly<Record<string, string>> } | undefined>>;
  };
}
