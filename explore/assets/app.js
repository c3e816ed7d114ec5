// tbkit explorer page: a board, the line played, and the book's and the tables' answers from the
// JSON API (docs/explore.md). No libraries; everything it needs is served by tbkit itself.
'use strict';

const SVG = 'http://www.w3.org/2000/svg';
const GLYPH = { k: '\u265A', q: '\u265B', r: '\u265C', b: '\u265D', n: '\u265E', p: '\u265F' };
const $ = (id) => document.getElementById(id);

const state = {
  startFen: 'startpos',
  moves: [],      // the line, UCI
  sans: [],       // the line, SAN
  ply: 0,         // how many of `moves` are on the board
  position: null, // /api/position's answer for the board
  selected: null, // square name of the piece picked up
  dragFrom: null,
  flipped: false,
  books: [],
  request: 0,     // answers of an older request are dropped
};

async function api(path, params) {
  const query = new URLSearchParams(params).toString();
  const res = await fetch(path + (query ? '?' + query : ''));
  const body = await res.json();
  return { status: res.status, body };
}

function squareName(file, rank) { return 'abcdefgh'[file] + (rank + 1); }

// The pieces of a FEN's board: {e1: 'K', ...}.
function piecesOf(fen) {
  const out = {};
  const rows = fen.split(' ')[0].split('/');
  rows.forEach((row, i) => {
    let file = 0;
    for (const c of row) {
      if (c >= '1' && c <= '8') file += Number(c);
      else { out[squareName(file, 7 - i)] = c; file += 1; }
    }
  });
  return out;
}

function drawBoard() {
  const board = $('board');
  board.textContent = '';
  const pos = state.position;
  const pieces = pos ? piecesOf(pos.fen) : {};
  const last = state.ply > 0 ? state.moves[state.ply - 1] : '';
  const targets = state.selected ? targetsOf(state.selected) : [];
  for (let rank = 0; rank < 8; rank++) {
    for (let file = 0; file < 8; file++) {
      const sq = squareName(file, rank);
      const x = state.flipped ? 7 - file : file;
      const y = state.flipped ? rank : 7 - rank;
      const rect = document.createElementNS(SVG, 'rect');
      rect.setAttribute('x', x); rect.setAttribute('y', y);
      rect.setAttribute('width', 1); rect.setAttribute('height', 1);
      let cls = (file + rank) % 2 === 0 ? 'dark' : 'light';
      if (last && (last.slice(0, 2) === sq || last.slice(2, 4) === sq)) cls = 'lastmove';
      if (state.selected === sq) cls = 'selected';
      rect.setAttribute('class', 'square ' + cls);
      rect.dataset.square = sq;
      rect.id = 'sq-' + sq;
      board.appendChild(rect);
      const p = pieces[sq];
      if (p) {
        // A black piece is the solid glyph; a white one the solid glyph in white under the
        // outline glyph (U+2654.., six code points below) in black.
        const white = p === p.toUpperCase();
        const layers = white ? [['piece white', GLYPH[p.toLowerCase()]],
                                ['piece black', String.fromCharCode(GLYPH[p.toLowerCase()].charCodeAt(0) - 6)]]
                             : [['piece black', GLYPH[p]]];
        for (const [cls, glyph] of layers) {
          const t = document.createElementNS(SVG, 'text');
          t.setAttribute('x', x + 0.5); t.setAttribute('y', y + 0.55);
          t.setAttribute('class', cls);
          t.textContent = glyph;
          board.appendChild(t);
        }
      }
      if (targets.includes(sq)) {
        const c = document.createElementNS(SVG, 'circle');
        c.setAttribute('cx', x + 0.5); c.setAttribute('cy', y + 0.5); c.setAttribute('r', 0.15);
        c.setAttribute('class', 'target');
        board.appendChild(c);
      }
      if (x === 0 || y === 7) {
        const t = document.createElementNS(SVG, 'text');
        t.setAttribute('class', 'coord');
        if (x === 0) { t.setAttribute('x', 0.04); t.setAttribute('y', y + 0.2); t.textContent = String(rank + 1); board.appendChild(t); }
        if (y === 7) {
          const f = document.createElementNS(SVG, 'text');
          f.setAttribute('class', 'coord'); f.setAttribute('x', x + 0.86); f.setAttribute('y', 7.95); f.textContent = 'abcdefgh'[file];
          board.appendChild(f);
        }
      }
    }
  }
}

function legalFrom(sq) { return state.position ? state.position.legal_moves.filter((m) => m.uci.startsWith(sq)) : []; }
function targetsOf(sq) { return legalFrom(sq).map((m) => m.uci.slice(2, 4)); }

// The legal move from `from` to `to`, promoting to the piece chosen beside the board.
function moveBetween(from, to) {
  const all = legalFrom(from).filter((m) => m.uci.slice(2, 4) === to);
  if (all.length <= 1) return all[0];
  return all.find((m) => m.uci[4] === $('promotion').value) || all[0];
}

function squareAt(event) {
  const el = document.elementFromPoint(event.clientX, event.clientY);
  return el && el.dataset ? el.dataset.square || null : null;
}

function onPointerDown(event) {
  const sq = squareAt(event);
  if (!sq) return;
  event.preventDefault();
  if (state.selected && targetsOf(state.selected).includes(sq)) {
    const m = moveBetween(state.selected, sq);
    state.selected = null;
    play(m.uci);
    return;
  }
  if (legalFrom(sq).length > 0) {
    state.selected = sq;
    state.dragFrom = sq;
  } else {
    state.selected = null;
  }
  drawBoard();
}

function onPointerUp(event) {
  const from = state.dragFrom;
  state.dragFrom = null;
  const sq = squareAt(event);
  if (!from || !sq || sq === from) return;
  if (targetsOf(from).includes(sq)) {
    state.selected = null;
    play(moveBetween(from, sq).uci);
  }
}

function play(uci) {
  state.moves = state.moves.slice(0, state.ply).concat([uci]);
  state.sans = state.sans.slice(0, state.ply);
  state.ply += 1;
  refresh();
}

function goTo(ply) {
  state.ply = Math.max(0, Math.min(ply, state.moves.length));
  state.selected = null;
  refresh();
}

function showError(text) { $('error').textContent = text || ''; }

function drawLine() {
  const line = $('line');
  line.textContent = '';
  const black = state.startFen !== 'startpos' && state.startFen.split(' ')[1] === 'b';
  let number = state.startFen === 'startpos' ? 1 : Number(state.startFen.split(' ')[5] || 1);
  state.sans.forEach((san, i) => {
    const whiteMove = (i % 2 === 0) !== black;
    if (whiteMove || i === 0) line.append((whiteMove ? number + '. ' : number + '... '));
    const span = document.createElement('span');
    span.className = 'mv' + (i + 1 === state.ply ? ' current' : '');
    span.textContent = san;
    span.addEventListener('click', () => goTo(i + 1));
    line.append(span, ' ');
    if (!whiteMove) number += 1;
  });
}

function cell(row, text, cls) {
  const td = document.createElement('td');
  if (text instanceof Node) td.appendChild(text); else td.textContent = text;
  if (cls) td.className = cls;
  row.appendChild(td);
  return td;
}

function table(headers, id) {
  const t = document.createElement('table');
  if (id) t.id = id;
  const head = t.createTHead().insertRow();
  for (const h of headers) { const th = document.createElement('th'); th.textContent = h; head.appendChild(th); }
  t.createTBody();
  return t;
}

function wdlBar(w, d, l) {
  const bar = document.createElement('div');
  bar.className = 'bar';
  bar.title = `win ${w}%, draw ${d}%, loss ${l}%`;
  for (const [cls, pct] of [['w', w], ['d', d], ['l', l]]) {
    const s = document.createElement('span');
    s.className = cls; s.style.width = pct + '%';
    bar.appendChild(s);
  }
  return bar;
}

function drawBook(answer) {
  const box = $('book');
  box.textContent = '';
  if (!answer) { box.innerHTML = '<p class="note">No book given (tbkit explore --book FILE).</p>'; return; }
  if (answer.status !== 200) { box.textContent = answer.body.error; return; }
  const b = answer.body;
  const stats = b.format === 'tbkit';
  if (b.moves.length === 0) box.insertAdjacentHTML('beforeend', '<p class="note">No book moves here.</p>');
  else {
    const rated = b.moves.some((m) => m.avg_rating !== null && m.avg_rating !== undefined);
    const headers = stats ? ['Move', 'Games', 'Win / draw / loss', 'W%', 'D%', 'L%'].concat(rated ? ['Avg rating'] : []) : ['Move', 'Weight', 'Weight%'];
    const t = table(headers, 'book-moves');
    // Most games first (the API lists by weight; Polyglot books have weights only).
    const moves = stats ? b.moves.slice().sort((x, y) => y.games - x.games) : b.moves;
    for (const m of moves) {
      const row = t.tBodies[0].insertRow();
      row.dataset.uci = m.uci;
      row.addEventListener('click', () => play(m.uci));
      cell(row, m.san);
      if (stats) {
        cell(row, String(m.games));
        cell(row, wdlBar(m.win_pct, m.draw_pct, m.loss_pct));
        cell(row, m.win_pct.toFixed(1)); cell(row, m.draw_pct.toFixed(1)); cell(row, m.loss_pct.toFixed(1));
        if (rated) cell(row, m.avg_rating === null ? '-' : String(m.avg_rating));
      } else {
        cell(row, String(m.weight)); cell(row, m.weight_pct.toFixed(1));
      }
    }
    box.appendChild(t);
  }
  if (b.learned) {
    const h = document.createElement('p');
    h.className = 'note';
    h.textContent = `Learned (${b.learned.games} games)` + (b.learned.moves.length ? ':' : ': no moves here.');
    box.appendChild(h);
    if (b.learned.moves.length) {
      const t = table(['Move', 'Games', 'Wins', 'Draws', 'Losses', 'Unknown', 'Score%'], 'learned-moves');
      for (const m of b.learned.moves) {
        const row = t.tBodies[0].insertRow();
        row.addEventListener('click', () => play(m.uci));
        for (const v of [m.san, m.games, m.wins, m.draws, m.losses, m.unknown, m.score_pct === null ? '-' : m.score_pct.toFixed(1)]) cell(row, String(v));
      }
      box.appendChild(t);
    }
  }
}

function dtmWords(m) {
  if (m.result === 'draw') return 'draw';
  const moves = Math.ceil(m.dtm_plies / 2);
  return (m.result === 'win' ? 'mates in ' : 'mated in ') + moves + ' (' + m.dtm_plies + ' plies)';
}

function drawTables(answer) {
  const box = $('tables');
  box.textContent = '';
  if (answer.status !== 200) {
    box.innerHTML = '<p class="note" id="verdict-none"></p>';
    box.firstChild.textContent = 'Not in the tables: ' + answer.body.error;
    return;
  }
  const r = answer.body;
  const v = document.createElement('p');
  v.id = 'verdict';
  v.className = r.result;
  v.textContent = r.verdict;
  box.appendChild(v);
  if (r.moves.length === 0) return;
  const fifty = r.wdl50 !== null;
  const t = table(['Move', 'Result', 'DTM'].concat(fifty ? ['WDL50', 'DTZ50'] : []), 'table-moves');
  for (const m of r.moves) {
    const row = t.tBodies[0].insertRow();
    row.dataset.uci = m.uci;
    row.addEventListener('click', () => play(m.uci));
    cell(row, m.san);
    cell(row, m.result, m.result);
    cell(row, dtmWords(m));
    if (fifty) { cell(row, m.wdl50 || '-'); cell(row, m.dtz50 === undefined ? '-' : String(m.dtz50)); }
  }
  box.appendChild(t);
}

async function refresh() {
  const id = ++state.request;
  document.body.dataset.loading = '1';
  showError('');
  const pos = await api('/api/position', { fen: state.startFen, moves: state.moves.slice(0, state.ply).join(',') });
  if (id !== state.request) return;
  if (pos.status !== 200) { showError(pos.body.error); document.body.dataset.loading = '0'; return; }
  state.position = pos.body;
  state.sans = pos.body.line.map((m) => m.san).concat(state.sans.slice(state.ply));
  $('fen').value = pos.body.fen;
  $('status').textContent = (pos.body.side_to_move === 'white' ? 'White' : 'Black') + ' to move' +
      (pos.body.status !== 'normal' && pos.body.status !== 'ongoing' ? ' - ' + pos.body.status : pos.body.in_check ? ' - check' : '');
  drawBoard();
  drawLine();
  const bookIndex = $('book-select').value;
  const [book, tables] = await Promise.all([
    state.books.length ? api('/api/book', { fen: pos.body.fen, book: bookIndex }) : Promise.resolve(null),
    api('/api/tables', { fen: pos.body.fen }),
  ]);
  if (id !== state.request) return;
  drawBook(book);
  drawTables(tables);
  document.body.dataset.fen = pos.body.fen;
  document.body.dataset.loading = '0';
}

// A new line from `startFen` with `moves` (SAN or UCI), checked by the server.
async function loadLine(startFen, moves) {
  const answer = await api('/api/position', { fen: startFen, moves: moves.join(' ') });
  if (answer.status !== 200) { showError(answer.body.error); return; }
  state.startFen = startFen;
  state.moves = answer.body.line.map((m) => m.uci);
  state.sans = answer.body.line.map((m) => m.san);
  state.ply = state.moves.length;
  state.selected = null;
  refresh();
}

// The moves of a PGN game (the first), without tags, comments, variations, numbers and results.
function pgnMoves(text) {
  const fen = /\[FEN\s+"([^"]*)"\]/.exec(text);
  let body = text.replace(/\[[^\]]*\]/g, ' ').replace(/\{[^}]*\}/g, ' ').replace(/;[^\n]*/g, ' ');
  let prev;
  do { prev = body; body = body.replace(/\([^()]*\)/g, ' '); } while (body !== prev);
  const words = body.split(/\s+/).map((w) => w.replace(/^\d+\.+/, '')).filter((w) =>
    w && !/^(1-0|0-1|1\/2-1\/2|\*)$/.test(w) && !/^\$\d+$/.test(w));
  return { fen: fen ? fen[1] : 'startpos', moves: words.map((w) => w.replace(/[!?]+$/, '')) };
}

async function init() {
  const board = $('board');
  board.addEventListener('pointerdown', onPointerDown);
  board.addEventListener('pointerup', onPointerUp);
  $('first').addEventListener('click', () => goTo(0));
  $('back').addEventListener('click', () => goTo(state.ply - 1));
  $('forward').addEventListener('click', () => goTo(state.ply + 1));
  $('last').addEventListener('click', () => goTo(state.moves.length));
  $('flip').addEventListener('click', () => { state.flipped = !state.flipped; drawBoard(); });
  document.addEventListener('keydown', (e) => {
    if (e.target.tagName === 'INPUT' || e.target.tagName === 'TEXTAREA') return;
    if (e.key === 'ArrowLeft') goTo(state.ply - 1);
    if (e.key === 'ArrowRight') goTo(state.ply + 1);
  });
  $('fen-form').addEventListener('submit', (e) => { e.preventDefault(); loadLine($('fen').value.trim() || 'startpos', []); });
  $('pgn-form').addEventListener('submit', (e) => { e.preventDefault(); const g = pgnMoves($('pgn').value); loadLine(g.fen, g.moves); });
  $('book-select').addEventListener('change', refresh);
  const info = (await api('/api/info', {})).body;
  state.books = info.books;
  for (const b of info.books) {
    const o = document.createElement('option');
    o.value = b.index; o.textContent = b.name + ' (' + b.format + ')';
    $('book-select').appendChild(o);
  }
  $('book-select').hidden = info.books.length < 2;
  $('sources').textContent = info.books.map((b) => b.name).join(', ') +
      (info.tables.dtm.length ? ' | DTM: ' + info.tables.dtm.length + ' tables' : ' | no DTM tables') +
      (info.tables.syzygy.length ? ', Syzygy: ' + info.tables.syzygy.length : '');
  refresh();
}

init();
