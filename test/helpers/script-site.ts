// Fixture pages whose content is built by script, for the browser renderer's tests and bench.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export const SCRIPT_ITEMS = 12;
/** `/held`'s detail pages, and how long each `/held` page takes to answer. */
export const HELD_ITEMS = 6;
const HELD_MS = 300;

export interface ScriptSite {
  url: string;
  port: number;
  /** Requests that reached the site, by path: a refused request never arrives. */
  hits: Map<string, number>;
  /** Most `/held` pages in flight at once (each is answered after HELD_MS). */
  maxHeld(): number;
  /** `/hang` requests whose connection is still open (they are never answered). */
  hanging(): number;
  close(): Promise<void>;
}

const page = (body: string, script: string) =>
  `<!doctype html><html><head><title>t</title></head><body>${body}<script>${script}</script></body></html>`;

const renderItems = `function add(items){const ul=document.querySelector('#list');for(const it of items){const li=document.createElement('li');
li.className='item';li.innerHTML='<a class="name" href="/detail/'+it.id+'">'+it.name+'</a><span class="price">'+it.price+'</span>';ul.appendChild(li);}}`;

function items(from: number, to: number) {
  return Array.from({ length: to - from }, (_, i) => ({
    id: from + i + 1,
    name: `Item ${from + i + 1}`,
    price: `${from + i + 1}.50`,
  }));
}

/** `/xhr`: the list from a JSON XHR; `/scroll`: 4 items more per scroll (12 in all); `/more`: a "Load more" button;
 *  `/detail/N`: a detail page rendered by script; `/never`: a list that never appears; `/reach?targets=`: a page
 *  that fetches each target; `/static`: a server-rendered list; `/slow`: renders after 300 ms; `/held`: a list of
 *  HELD_ITEMS links to `/held/N`, each page answered after HELD_MS; `/hang`: never answered; `/throttled?busy=&after=`:
 *  429 with Retry-After for the first `busy` requests, then a list. */
export async function startScriptSite(): Promise<ScriptSite> {
  const hits = new Map<string, number>();
  let held = 0;
  let maxHeld = 0;
  let hanging = 0;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    // robots.txt (fetched by every Run that respects it) has no rules here and is not counted.
    if (url.pathname === '/robots.txt') return res.writeHead(404).end('not found');
    hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
    if (url.pathname.startsWith('/held')) {
      maxHeld = Math.max(maxHeld, ++held);
      const links = Array.from(
        { length: HELD_ITEMS },
        (_, i) => `<li class="item"><a class="name" href="/held/${i + 1}">H${i + 1}</a></li>`,
      );
      const body = url.pathname === '/held' ? `<ul id="list">${links.join('')}</ul>` : '<p class="sku">held</p>';
      setTimeout(() => {
        held--;
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(body, ''));
      }, HELD_MS);
      return;
    }
    if (url.pathname === '/hang') {
      hanging++;
      res.on('close', () => hanging--);
      return;
    }
    const html = (text: string) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(text);
    const json = (value: unknown) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    const from = Number(url.searchParams.get('from') ?? 0);
    switch (url.pathname) {
      case '/xhr':
        return html(page('<ul id="list"></ul>', `${renderItems} fetch('/api/items').then(r=>r.json()).then(add);`));
      case '/api/items':
        return json(items(from, Math.min(SCRIPT_ITEMS, from + Number(url.searchParams.get('n') ?? SCRIPT_ITEMS))));
      case '/scroll':
        return html(
          page(
            '<ul id="list"></ul><div style="height:3000px"></div>',
            `${renderItems} let from=0; function load(){ if(from>=${SCRIPT_ITEMS})return; fetch('/api/items?n=4&from='+from).then(r=>r.json()).then(a=>{add(a);});from+=4;}
             load(); let busy=false; addEventListener('scroll',()=>{ if(busy)return; busy=true; setTimeout(()=>{busy=false;load();},50); });`,
          ),
        );
      case '/more':
        return html(
          page(
            '<ul id="list"></ul><button id="more">Load more</button>',
            `${renderItems} let from=0; const b=document.querySelector('#more'); function load(){ fetch('/api/items?n=4&from='+from).then(r=>r.json())
             .then(a=>{add(a); from+=4; if(from>=${SCRIPT_ITEMS}) b.remove();});} load(); b.addEventListener('click', load);`,
          ),
        );
      case '/static':
        return html(
          page(
            `<ul id="list">${items(0, 3)
              .map((i) => `<li class="item"><a class="name" href="/detail/${i.id}">${i.name}</a></li>`)
              .join('')}</ul>`,
            '',
          ),
        );
      case '/never':
        return html(page('<ul id="list"></ul>', 'setInterval(()=>{},1000);'));
      case '/throttled':
        // The first `busy` hits answer 429 with `Retry-After: <after>` seconds, later ones a list of 3 items.
        if ((hits.get('/throttled') ?? 0) <= Number(url.searchParams.get('busy') ?? 1)) {
          return res.writeHead(429, { 'retry-after': url.searchParams.get('after') ?? '1' }).end('slow down');
        }
        return html(
          page(
            `<ul id="list">${items(0, 3)
              .map((i) => `<li class="item">${i.name}</li>`)
              .join('')}</ul>`,
            '',
          ),
        );
      case '/reach': {
        const targets = url.searchParams.getAll('t');
        const script = `${renderItems} Promise.all(${JSON.stringify(targets)}.map(t=>fetch(t).then(r=>r.text()).then(x=>'got '+x.length).catch(e=>'refused')))
          .then(r=>add(r.map((x,i)=>({id:i,name:x,price:'0'}))));`;
        return html(page('<ul id="list"></ul>', script));
      }
      default: {
        const detail = /^\/detail\/(\d+)$/.exec(url.pathname);
        if (detail) {
          return html(
            page('<div id="d"></div>', `document.querySelector('#d').innerHTML='<p class="sku">SKU-${detail[1]}</p>';`),
          );
        }
        return res.writeHead(404).end('not found');
      }
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    hits,
    maxHeld: () => maxHeld,
    hanging: () => hanging,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
