// The page of `morris serve`: the board of the folder's variant, the value
// of the position shown, its moves grouped by category, and play by clicks.
// It reads only this server's API; body[data-state] is `loading`, `ready`
// or `error` so that a test (or a person) knows when an answer is shown.
'use strict';

const SVG = 'http://www.w3.org/2000/svg';
const $ = (id) => document.getElementById(id);

const GROUPS = [
  ['win', 'winning'],
  ['cursed-win', 'cursed wins (the move-count rule draws them)'],
  ['draw', 'drawing'],
  ['blessed-loss', 'blessed losses (the move-count rule saves them)'],
  ['loss', 'losing'],
];

const page = {
  meta: null,        // GET /api/meta of the folder shown
  folder: null,      // its served name
  answer: null,      // GET /api/probe of the position shown
  history: [],       // position texts, with the counter under the rule
  at: -1,            // the one shown
  picked: {},        // the parts of a move clicked on the board so far
  request: 0,        // the latest request: older answers are dropped
  replyDue: false,   // a move was just played: the database answers it
};

async function api(path, params) {
  const query = new URLSearchParams({ db: page.folder, ...params });
  const response = await fetch(`${path}?${query}`);
  const body = await response.json();
  if (!response.ok) {
    const error = new Error(body.error + (body.hint ? ` (${body.hint})` : ''));
    error.kind = body.kind;
    throw error;
  }
  return body;
}

function setState(state) {
  document.body.dataset.state = state;
}

// An answer is on its way: the one shown may be about to change.
function busy() {
  return document.body.dataset.state === 'loading';
}

function showError(error) {
  $('error').textContent = error ? error.message : '';
  $('error').hidden = !error;
}

// ---- the board ----------------------------------------------------------

function parseMove(text) {
  const m = /^(?:([a-g][1-7])-)?([a-g][1-7])(?:x([a-g][1-7]))?$/.exec(text);
  return m ? { from: m[1] || null, to: m[2], remove: m[3] || null } : null;
}

// The men of a position string: point name -> 'W' or 'B'.
function menOf(position) {
  const [board, side, whiteHand, blackHand] = position.split(' ');
  const ranks = board.split('/');
  const men = {};
  page.meta.board.ranks.forEach((names, r) => {
    names.forEach((name, i) => {
      const c = ranks[r][i];
      if (c === 'W' || c === 'B') men[name] = c;
    });
  });
  return { men, side, hands: { W: Number(whiteHand), B: Number(blackHand) } };
}

function drawBoard() {
  const svg = $('board');
  const points = page.meta.board.points;
  const width = Math.max(...points.map((p) => p.file));
  const top = Math.max(...points.map((p) => p.rank));
  const bottom = Math.min(...points.map((p) => p.rank));
  svg.setAttribute('viewBox', `-0.7 -0.7 ${width + 1.4} ${top - bottom + 1.4}`);
  svg.innerHTML = '';
  page.xy = {};
  for (const p of points) page.xy[p.name] = [p.file, top - p.rank];
  const add = (tag, attrs, parent = svg) => {
    const el = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    parent.appendChild(el);
    return el;
  };
  for (const [a, b] of page.meta.board.links) {
    add('line', { x1: page.xy[a][0], y1: page.xy[a][1], x2: page.xy[b][0], y2: page.xy[b][1] });
  }
  page.layers = { men: add('g', {}), hints: add('g', {}), hits: add('g', {}) };
  for (const p of points) {
    const [x, y] = page.xy[p.name];
    add('circle', { cx: x, cy: y, r: 0.09, class: 'point' }, page.layers.men);
    const hit = add('circle', { cx: x, cy: y, r: 0.4, fill: 'transparent', 'data-point': p.name }, page.layers.hits);
    hit.addEventListener('click', () => clickPoint(p.name));
    const title = document.createElementNS(SVG, 'title');
    title.textContent = p.name;
    hit.appendChild(title);
  }
  page.add = add;
}

function drawPosition() {
  const { men, side, hands } = menOf(page.answer.position);
  const layer = page.layers.men;
  layer.querySelectorAll('.man').forEach((el) => el.remove());
  for (const [name, color] of Object.entries(men)) {
    const [x, y] = page.xy[name];
    const cls = `man ${color === 'W' ? 'white' : 'black'}${page.picked.from === name ? ' selected' : ''}`;
    page.add('circle', { cx: x, cy: y, r: 0.3, class: cls, 'data-man': name }, layer);
  }
  for (const [color, id] of [['W', 'hand-white'], ['B', 'hand-black']]) {
    const name = color === 'W' ? 'White' : 'Black';
    const el = $(id);
    el.innerHTML = `<span>${name} in hand: ${hands[color]}</span>`;
    for (let i = 0; i < hands[color]; i++) {
      const man = document.createElement('span');
      man.className = `in-hand ${color === 'W' ? 'white' : 'black'}`;
      el.appendChild(man);
    }
  }
  const counter = page.answer.counter == null ? '' :
    `; ${page.answer.counter} of ${page.answer.n_move} plies since the last mill`;
  $('to-move').textContent = `${side === 'w' ? 'White' : 'Black'} to move${counter}`;
  $('board').dataset.position = page.answer.position;
}

function hint(move) {
  const layer = page.layers.hints;
  layer.innerHTML = '';
  if (!move) return;
  const parts = parseMove(move.move);
  const ring = (name, cls, r) => {
    const [x, y] = page.xy[name];
    page.add('circle', { cx: x, cy: y, r, class: cls }, layer);
  };
  if (parts.from) ring(parts.from, 'hint-from', 0.36);
  ring(parts.to, 'hint-to', 0.22);
  if (parts.remove) ring(parts.remove, 'hint-remove', 0.38);
}

// A click on a point: a man to move, the point to move or place on, then
// a man to remove after a mill; the move is played once it is whole.
function clickPoint(name) {
  if (!page.answer || !page.answer.moves || busy() || waitingForDatabase()) return;
  const moves = page.answer.moves.map((m) => ({ answer: m, ...parseMove(m.move) }));
  const picked = page.picked;
  const fits = (m) => m.from === (picked.from ?? null) && m.to === picked.to;
  if (picked.to !== undefined) {
    const chosen = moves.find((m) => fits(m) && m.remove === name);
    if (chosen) return play(chosen.answer);
    return pick({});
  }
  if (picked.from !== undefined) {
    const chosen = moves.filter((m) => m.from === picked.from && m.to === name);
    if (chosen.length) return settle(chosen, { from: picked.from, to: name });
  }
  const from = moves.filter((m) => m.from === name);
  if (from.length) return pick({ from: name });
  const placed = moves.filter((m) => m.from === null && m.to === name);
  if (placed.length) return settle(placed, { to: name });
  pick({});
}

// The parts picked fit these moves: play the one without a removal, or ask
// for the man to remove.
function settle(moves, parts) {
  if (moves.length === 1 && !moves[0].remove) return play(moves[0].answer);
  pick(parts);
  $('prompt').textContent = 'a mill: click a man to remove';
}

function pick(parts) {
  page.picked = parts;
  $('prompt').textContent = parts.from && !parts.to ? `${parts.from}: click where it goes` : '';
  drawPosition();
}

// ---- the answer ---------------------------------------------------------

function plies(n) {
  return `${n} ${n === 1 ? 'ply' : 'plies'}`;
}

function valueInWords(answer) {
  const side = answer.position.split(' ')[1] === 'w' ? 'White' : 'Black';
  const other = side === 'White' ? 'Black' : 'White';
  const mill = answer.mill_plies == null ? '' : `, the next mill in ${plies(answer.mill_plies)}`;
  switch (answer.category) {
    case 'win':
      return `${side} wins${answer.plies == null ? '' : ` in ${plies(answer.plies)}`}${mill}`;
    case 'loss':
      if (answer.plies === 0) return `${side} has lost: the game is over`;
      return `${other} wins${answer.plies == null ? '' : ` in ${plies(answer.plies)}`}${mill}`;
    case 'cursed-win':
      return `Cursed win for ${side}: the ${answer.n_move}-ply rule draws it`;
    case 'blessed-loss':
      return `Blessed loss for ${side}: the ${answer.n_move}-ply rule saves it`;
    default:
      if (answer.n_move != null && answer.counter >= answer.n_move) return `Draw: the ${answer.n_move}-ply rule has drawn the game`;
      return 'Draw';
  }
}

function distance(move) {
  if (move.plies != null) return ` ${move.plies}`;
  if (move.mill_plies != null) return ` m${move.mill_plies}`;
  return '';
}

function drawMoves() {
  const box = $('moves');
  box.innerHTML = '';
  const moves = page.answer.moves || [];
  if (!moves.length) box.textContent = 'no moves: the game is over';
  for (const [category, heading] of GROUPS) {
    const group = moves.filter((m) => m.category === category);
    if (!group.length) continue;
    const section = document.createElement('div');
    section.className = 'group';
    section.innerHTML = `<h3>${heading} (${group.length})</h3>`;
    const list = document.createElement('ul');
    for (const m of group) {
      const item = document.createElement('li');
      item.className = `move ${category}`;
      item.tabIndex = 0;
      item.dataset.move = m.move;
      const chances = m.replies ? `; ${m.errors} of the ${m.replies} replies are errors` : '';
      item.title = `${m.move}: ${m.category}${m.plies != null ? ` in ${plies(m.plies)}` : ''}${m.mill ? ', closes a mill' : ''}${chances}`;
      item.textContent = m.move + distance(m);
      item.addEventListener('mouseenter', () => hint(m));
      item.addEventListener('mouseleave', () => hint(null));
      item.addEventListener('click', () => { if (!busy() && !waitingForDatabase()) play(m); });
      item.addEventListener('keydown', (e) => { if (e.key === 'Enter') item.click(); });
      list.appendChild(item);
    }
    section.appendChild(list);
    box.appendChild(section);
  }
}

async function drawStats(text, request) {
  const table = $('stats');
  table.innerHTML = '';
  try {
    const s = await api('/api/stats', { position: text });
    if (request !== page.request) return;
    const dash = (v) => (v == null ? '-' : v);
    const rows = [['sector', s.sector], ['positions', s.positions], ['wins', s.wins],
      ['draws', s.draws], ['losses', s.losses], ['longest win', dash(s.longest_win)],
      ['longest loss', dash(s.longest_loss)]];
    table.innerHTML = rows.map(([k, v]) => `<tr><th>${k}</th><td>${v}</td></tr>`).join('');
  } catch (error) {
    if (request !== page.request) return;
    const cell = document.createElement('td');
    cell.className = 'quiet';
    cell.textContent = error.message;
    table.appendChild(document.createElement('tr')).appendChild(cell);
  }
}

// The side the database plays, when playing against it.
function databaseSide() {
  const you = $('play-as').value;
  return you === '' ? null : you === 'w' ? 'b' : 'w';
}

function waitingForDatabase() {
  return page.answer && databaseSide() === page.answer.position.split(' ')[1];
}

// Shows the position `history[at]`.
async function show() {
  const text = page.history[page.at];
  const request = ++page.request;
  setState('loading');
  $('line').innerHTML = '';
  $('line-end').textContent = '';
  hint(null);
  page.picked = {};
  $('prompt').textContent = '';
  try {
    const answer = await api('/api/probe', { position: text });
    if (request !== page.request) return;
    page.answer = answer;
    showError(null);
  } catch (error) {
    if (request !== page.request) return;
    showError(error);
    setState('error');
    return;
  }
  const answer = page.answer;
  drawPosition();
  $('value').textContent = valueInWords(answer);
  $('value').className = answer.category;
  drawMoves();
  $('position-input').value = textOf(answer);
  $('back').disabled = page.at === 0;
  $('forward').disabled = page.at === page.history.length - 1;
  const url = `?${new URLSearchParams({ db: page.folder, position: textOf(answer) })}`;
  window.history.replaceState(null, '', url);
  $('permalink').href = url;
  await drawStats(textOf(answer), request);
  if (request !== page.request) return;
  setState('ready');
  const reply = page.replyDue;
  page.replyDue = false;
  if (reply && waitingForDatabase() && answer.moves && answer.moves.length) {
    setTimeout(() => { if (request === page.request) play(answer.moves[0]); }, 400);
  }
}

// The position text of an answer, with its counter under the rule.
function textOf(answer) {
  return answer.counter == null ? answer.position : `${answer.position} ${answer.counter}`;
}

function play(move) {
  const answer = page.answer;
  page.replyDue = true;
  let text = move.position;
  if (answer.counter != null) text += ` ${move.mill ? 0 : answer.counter + 1}`;
  page.history = page.history.slice(0, page.at + 1);
  page.history.push(text);
  page.at += 1;
  show();
}

function goTo(text) {
  page.history = [text];
  page.at = 0;
  show();
}

async function showLine() {
  const list = $('line');
  list.innerHTML = '';
  const request = ++page.request;
  setState('loading');
  try {
    const answer = await api('/api/line', { position: page.history[page.at] });
    if (request !== page.request) return;
    for (const m of answer.line || []) {
      const item = document.createElement('li');
      item.textContent = m;
      list.appendChild(item);
    }
    $('line-end').textContent = answer.line_end ? `ends: ${answer.line_end}` : answer.line_null_because || '';
    setState('ready');
  } catch (error) {
    if (request !== page.request) return;
    showError(error);
    setState('error');
  }
}

async function openFolder(name, position) {
  page.folder = name;
  page.meta = await api('/api/meta', {});
  $('folder-label').textContent = `${page.meta.label}: ${page.meta.storage} folder, ${page.meta.sectors.length} sectors`;
  drawBoard();
  goTo(position || page.meta.start);
}

async function main() {
  const params = new URLSearchParams(window.location.search);
  const first = await (await fetch('/api/meta')).json();
  const chosen = first.folders.includes(params.get('db')) ? params.get('db') : first.name;
  if (first.folders.length > 1) {
    $('folder-choice').hidden = false;
    for (const name of first.folders) $('folder').add(new Option(name, name, false, name === chosen));
    $('folder').addEventListener('change', () => openFolder($('folder').value));
  }
  $('back').addEventListener('click', () => { if (page.at > 0) { page.at -= 1; show(); } });
  $('forward').addEventListener('click', () => {
    if (page.at < page.history.length - 1) { page.at += 1; show(); }
  });
  $('start').addEventListener('click', () => goTo(page.meta.start));
  $('position-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const text = $('position-input').value.trim();
    if (text) goTo(text);
  });
  $('line-button').addEventListener('click', () => { if (!busy()) showLine(); });
  $('play-as').addEventListener('change', () => { page.replyDue = true; show(); });
  await openFolder(chosen, params.get('position'));
}

main().catch((error) => { showError(error); setState('error'); });
