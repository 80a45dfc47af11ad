import { htmlText, isHtml, markupFor } from './html-text.js';

const PAGE = `<!DOCTYPE html><html><head><title>Opening hours — Rossi Bakery</title>
<style>body { color: red }</style><script>var shown = "<p>not text</p>";</script></head>
<body><nav><a href="/">Home</a> | <a href="/menu">Menu</a></nav><!-- a comment -->
<h1>Opening hours</h1><p>We are open <b>Monday to Friday</b>, 7:00&ndash;19:00.</p>
<table><tr><th>Day</th><th>Hours</th></tr><tr><td>Saturday</td><td>8:00–13:00</td></tr></table>
<ul><li>Free parking</li><li>Dogs welcome</li></ul><img src="front.png" alt="the shop">
<noscript>Enable JavaScript</noscript><svg><text>icon</text></svg><button>Book</button>
<script type="application/ld+json">{"@type": "Bakery"}</script></body></html>`;

describe('htmlText', () => {
  it('gives the title and the text a reader sees: blocks, tables by row, lists; no markup, scripts or link targets', async () => {
    expect(await htmlText(PAGE, 65_536)).toBe(
      [
        'Opening hours — Rossi Bakery',
        '',
        'Opening hours',
        '',
        'We are open Monday to Friday, 7:00–19:00.',
        '',
        'Day        Hours',
        'Saturday   8:00–13:00',
        '',
        ' * Free parking',
        ' * Dogs welcome',
        '',
        // Its navigation last: no content is marked (`<main>`, `<article>`), but the menu is.
        'Home | Menu',
      ].join('\n'),
    );
  });

  it("reads a page's main content first, then the rest but its navigation", async () => {
    const menu = `<nav>${'<a href="/x">Menu entry</a> '.repeat(300)}</nav>`;
    const page = `<html><head><title>Rossi</title></head><body><header><b>Rossi Bakery</b>${menu}</header>
      <div role="main"><h1>Opening hours</h1><p>Open 7–19.</p></div>
      <footer><p>Via Roma 1, Parma</p></footer></body></html>`;
    expect(await htmlText(page, 65_536)).toBe(
      'Rossi\n\nOpening hours\n\nOpen 7–19.\n\nRossi Bakery\n\nVia Roma 1, Parma',
    );
    expect(
      await htmlText(page.replace('div role="main"', 'main').replace('</div>', '</main>'), 65_536),
    ).toBe('Rossi\n\nOpening hours\n\nOpen 7–19.\n\nRossi Bakery\n\nVia Roma 1, Parma');
    const posts = `<body>${menu}<article><p>first post</p></article><aside>Archive</aside><article><p>second post</p></article></body>`;
    expect(await htmlText(posts, 65_536)).toBe('first post\n\nsecond post\n\nArchive');
    // A <main-menu> is no <main>: the page is read whole, in its order.
    expect(await htmlText('<main-menu>Menu</main-menu><p>Body</p>', 65_536)).toBe('Menu\n\nBody');
  });

  it('reads a page without marked content but with marked navigation, its navigation last', async () => {
    const page = `<body><div role="navigation"><a href="/">Home</a> <a href="/faq">FAQ</a></div>
      <div class="crumbs"><nav>Shop › Bread</nav></div><h1>Rye loaf</h1><p>3.20 €</p></body>`;
    expect(await htmlText(page, 65_536)).toBe('Rye loaf\n\n3.20 €\n\nHome FAQ\nShop › Bread');
    // A page of links only is still read; a <navbar> is no <nav>.
    expect(await htmlText('<nav><a href="/a">A</a> <a href="/b">B</a></nav>', 65_536)).toBe('A B');
    expect(await htmlText('<navbar>Menu</navbar><p>Body</p>', 65_536)).toBe('Menu\n\nBody');
  });

  it('reads a fragment (no body) whole, its title first', async () => {
    expect(await htmlText('<title>Hours</title><p>Open <b>7&ndash;19</b></p>', 65_536)).toBe(
      'Hours\n\nOpen 7–19',
    );
    expect(await htmlText('<p>one</p><p>two</p>', 65_536)).toBe('one\n\ntwo');
  });

  it('reads at most so much markup once scripts are out, however long the scripts', async () => {
    const scripts = `<script>${'x'.repeat(500_000)}</script>`;
    const long = `<html><body>${scripts}<p>first</p><p>${'y'.repeat(200)}</p><p>last</p></body></html>`;
    const text = await htmlText(long, 100);
    expect(text).toContain('first');
    expect(text).not.toContain('last');
  });

  it('reads pages that would exhaust a recursive walk, and many unclosed scripts, in one pass', async () => {
    expect(await htmlText(`${'<div>'.repeat(50_000)}deep`, 262_144)).toBe('…');
    expect(await htmlText(`<p>kept</p>${'<script>a'.repeat(20_000)}`, 262_144)).toBe('kept');
    const rows = '<tr><td>a</td><td>b</td></tr>'.repeat(20_000);
    expect(await htmlText(`<table>${rows}</table>`, 65_536)).toMatch(/^a +b\na +b\n/);
  });

  it('knows HTML by its media types, and reads 64 K to 256 K of markup', () => {
    expect(['text/html', 'application/xhtml+xml', 'text/plain'].map(isHtml)).toEqual([
      true,
      true,
      false,
    ]);
    expect([100, 2000, 4000, 1_000_000].map(markupFor)).toEqual([65_536, 65_536, 128_000, 262_144]);
  });
});
