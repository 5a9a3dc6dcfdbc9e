/** A progress bar on stderr: redrawn in place on a terminal, a line per 10% otherwise. */
export function progressBar(write: (text: string) => void, label: string, isTty: boolean): (done: number, total: number) => void {
  let lastDecile = -1;
  return (done, total) => {
    const share = total === 0 ? 1 : done / total;
    if (isTty) {
      const width = 30;
      const filled = Math.round(share * width);
      write(`\r${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total}${done === total ? '\n' : ''}`);
      return;
    }
    const decile = Math.floor(share * 10);
    if (decile !== lastDecile) {
      lastDecile = decile;
      write(`${label}: ${done}/${total}\n`);
    }
  };
}
