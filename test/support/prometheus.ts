/** Sample lines of a Prometheus scrape, by name and labels (`name{label="v"}` → value). */
export function samples(text: string): Map<string, number> {
  const lines = text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
  return new Map(
    lines.map((l) => [l.slice(0, l.lastIndexOf(' ')), Number(l.slice(l.lastIndexOf(' ') + 1))]),
  );
}
