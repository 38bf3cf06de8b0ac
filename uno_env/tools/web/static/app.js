/* uno_env web page: play, watch and replay. Plain JavaScript, no build step.
 *
 * The server keeps the game; this page shows the views it sends (see
 * uno_env/tools/web/views.py) and posts the actions clicked. A view's events are logged one
 * by one; an event that carries a table (the last of a stretch) draws it, with a pause after.
 * document.body.dataset.state says what the page waits for: loading (until the server's meta
 * came), setup, busy, input, idle, over
 * (the browser test reads it).
 */
"use strict";

const COLORS = {red: "#d7262b", yellow: "#f1c40f", green: "#2e9d3a", blue: "#1e63c6",
                orange: "#f07f1a", purple: "#7d3fa6"};
// the text colour on a colour's swatch: dark on the light ones (yellow, green, orange), white
// on the others, whichever has the higher WCAG contrast (the browser test checks >= 4.5:1)
const DARK_INK = "#1b1b1b";
function inkOn(hex) {
  const lin = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
  const n = parseInt(hex.slice(1), 16);
  const l = 0.2126 * lin(n >> 16) + 0.7152 * lin((n >> 8) & 255) + 0.0722 * lin(n & 255);
  return (1.05 / (l + 0.05)) >= ((l + 0.05) / 0.0608) ? "#fff" : DARK_INK;  // 0.0608: DARK_INK's luminance + 0.05
}
function paintSwatch(b, colour) {
  b.style.background = COLORS[colour];
  b.style.borderColor = COLORS[colour];
  b.style.color = inkOn(COLORS[colour]);
  if (b.style.color !== "rgb(255, 255, 255)") b.style.textShadow = "none";
}
const FACES = {draw2: "+2", reverse: "\u21C4", skip: "\u2298"};
const WILDS = {"wild": "W", "wild-draw4": "+4", "team-attack": "TA", "from-the-sewers": "S"};
const WILD_TITLES = {"wild": "WILD", "wild-draw4": "+4", "team-attack": "TEAM", "from-the-sewers": "SEWERS"};
const OPTION_KEYS = ["stacking", "jump_in", "seven_slap", "giving", "uno_call", "draw_rule", "episode"];

const $ = (id) => document.getElementById(id);
const S = {
  meta: null, tab: "play", mode: "play", game: null, token: null, view: null, colors: [],
  busy: false, skip: false, pause: 600, settings: null,
  watch: {playing: false, seat: "all"},
  replay: {id: null, token: null, count: 0, index: 0, texts: [], header: null, playing: false},
};

// ---------------------------------------------------------------- helpers
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = text;
  return e;
}
function sleep(ms) {
  return new Promise((resolve) => {
    if (S.skip || ms <= 0) return resolve();
    const t = setTimeout(resolve, ms);
    S.wake = () => { clearTimeout(t); resolve(); };
  });
}
function setState(state) { document.body.dataset.state = state; }
function toast(message) {
  const t = $("toast");
  t.textContent = message;
  t.classList.remove("hidden");
  clearTimeout(S.toastTimer);
  S.toastTimer = setTimeout(() => t.classList.add("hidden"), 5000);
}
async function api(method, path, body, raw, headers) {
  const opt = {method, headers: Object.assign({}, headers || {})};
  if (body !== undefined) {
    opt.headers["Content-Type"] = raw ? "application/x-ndjson" : "application/json";
    opt.body = raw ? body : JSON.stringify(body);
  }
  const r = await fetch(path, opt);
  const text = await r.text();
  let data = null;
  try { data = JSON.parse(text); } catch (e) { data = null; }
  if (!r.ok) throw new Error((data && data.error) || `${r.status} ${r.statusText}`);
  return data === null ? text : data;
}
// drop what this page created (the server keeps it otherwise until it is idle for a while)
function drop(kind, id, token) {
  if (id && token) api("DELETE", `/api/${kind}/${id}`, undefined, false, {"X-Uno-Token": token}).catch(() => {});
}
function colorOf(name) {
  const i = name.indexOf("-");
  const c = i > 0 ? name.slice(0, i) : null;
  return S.colors.includes(c) ? c : null;
}
function seatName(i, view) {
  if (view && view.mode === "play" && i === view.seat) return "you";
  return `player_${i}`;
}
// an agent's display name (the server's views.short_spec); the full spec is its title
function shortOf(view, i) {
  const p = view.players && view.players[i];
  return (p && p.short) || (view.specs ? view.specs[i] : "");
}

// ---------------------------------------------------------------- cards
// a card's name in words, for screen readers ("red 5", "wild draw4")
function spoken(name) { return name.replace(/-/g, " ").replace("draw2", "draw two").replace("draw4", "draw four"); }
function cardEl(name, size, chosen) {
  const c = el("div", "card" + (size ? " " + size : ""));
  c.dataset.card = name;
  c.title = name;
  c.setAttribute("role", "img");
  c.setAttribute("aria-label", spoken(name) + (chosen ? `, colour ${chosen}` : ""));
  const colour = colorOf(name);
  let label;
  if (colour) {
    const face = name.slice(colour.length + 1);
    label = FACES[face] || face;
    c.style.setProperty("--c", COLORS[colour]);
  } else {
    label = WILDS[name] || "?";
    c.classList.add("wild");
    if (chosen) {
      c.classList.add("chosen");
      c.style.setProperty("--chosen", COLORS[chosen]);
    }
  }
  // the colour's initial in a corner: colour is never the only cue
  c.append(el("span", "tl", colour ? label : WILD_TITLES[name] || label),
           el("span", "mid", label), el("span", "br", colour ? colour[0].toUpperCase() : ""));
  return c;
}
function backEl(size) {
  const c = el("div", "card back" + (size ? " " + size : ""));
  c.append(el("span", null, "UNO"));
  return c;
}
function setColors(colors) {
  S.colors = colors;
  const felt = $("felt");
  colors.forEach((c, i) => {
    felt.style.setProperty(`--c${i}`, COLORS[c]);
    document.documentElement.style.setProperty(`--c${i}`, COLORS[c]);
  });
}

// ---------------------------------------------------------------- the table
function renderCenter(t) {
  const d = $("discard");
  const prev = d.firstChild && d.firstChild.dataset.card;
  d.replaceChildren(cardEl(t.top, "", t.color));
  if (prev !== t.top) d.firstChild.classList.add("pop");
  $("draw-count").textContent = `${t.draw_size} cards`;
  $("color-chip").style.background = t.color ? COLORS[t.color] : "#555";
  $("color-name").textContent = t.color || "colour not chosen";
  const cw = t.direction === "clockwise";
  $("direction").innerHTML = "";
  $("direction").append(el("b", null, cw ? "\u21BB" : "\u21BA"), cw ? "clockwise" : "counter-clockwise");
  $("spin").classList.toggle("ccw", !cw);
  $("spin").title = cw ? "play goes clockwise" : "play goes counter-clockwise";
  const p = $("pending");
  if (t.pending > 0) {
    p.textContent = t.pending_kind === "sewers" ? `SEWERS \u00D7${t.pending} pending` : `+${t.pending} pending`;
    p.classList.remove("hidden");
  } else p.classList.add("hidden");
  $("round").textContent = `round ${t.round}`;
}

function renderSeats(view, t) {
  const top = $("seats");
  const bottom = $("seats-bottom");
  top.replaceChildren();
  bottom.replaceChildren();
  const n = view.num_players;
  const open = !!t.hands;
  // every hand open (a spectator): half the seats along the far side of the table, the
  // others along the near side, in play order around it
  const far = open ? Math.ceil(n / 2) : n;
  let box = top;
  // the viewer's seat (or a replay's human seat) is drawn last: at the near side
  const near = view.seat === null || view.seat === undefined ? view.bottom : view.seat;
  const first = near === null || near === undefined ? 0 : near + 1;
  const showScores = view.rules.options.episode !== "round";
  for (let j = 0; j < n; j++) {
    const q = (first + j) % n;
    if (q === view.seat) continue;  // that seat's hand is shown below
    box = j < far ? top : bottom;
    const p = view.players[q];
    const seat = el("div", "seat" + (open ? " open" : "") + (q === view.seat ? " me" : ""));
    seat.dataset.seat = q;
    if (q === t.turn) seat.classList.add("turn");
    const head = el("div", "seat-head");
    const spec = el("span", "seat-spec", p.short || p.spec);
    spec.title = p.spec;
    head.append(el("span", "seat-name", seatName(q, view)), spec);
    if (q === t.dealer) head.append(el("span", "badge dealer", "D"));
    if (t.uno[q] && t.hand_sizes[q] > 0) head.append(el("span", "badge uno", "UNO!"));
    if (showScores) head.append(el("span", "badge score", `${t.scores[q]} pts`));
    if (view.over && view.winner === q) head.append(el("span", "badge winner", "winner"));
    seat.append(head);
    const cards = el("div", "seat-cards");
    if (open) {
      t.hands[q].forEach((c) => cards.append(cardEl(c, "small")));
      if (!t.hands[q].length) cards.append(el("span", "seat-spec", "no cards"));
    } else {
      const k = t.hand_sizes[q];
      for (let i = 0; i < Math.min(k, 10); i++) cards.append(backEl("mini"));
      cards.append(el("span", "seat-count", String(k)));
    }
    seat.append(cards);
    if (!open && (p.known.length || p.offer)) {
      const known = el("div", "seat-known");
      const shown = p.known.slice();
      if (p.offer && shown.includes(p.offer)) shown.splice(shown.indexOf(p.offer), 1);  // shown as the offer
      // a compact strip (a SEWERS show can reveal dozens): overlapping minis, the list as its title
      if (shown.length) {
        known.append(`known ${shown.length}:`);
        const strip = el("span", "known-strip");
        strip.title = shown.join(", ");
        shown.forEach((c) => strip.append(cardEl(c, "mini")));
        known.append(strip);
      }
      if (p.offer) { known.append("offers:"); known.append(cardEl(p.offer, "small")); }
      seat.append(known);
    }
    if (box === bottom) box.prepend(seat);
    else box.append(seat);
  }
  placeAround(top, bottom, t.direction === "clockwise");
}
// Seats around the table in turn order: the far row left to right, then the near row right to
// left (clockwise: seat numbers rising), on an arc (the row's ends lower, toward the sides),
// an arrow between two seats pointing the way play goes.
function placeAround(top, bottom, clockwise) {
  for (const [row, ahead] of [[top, clockwise ? "\u2192" : "\u2190"], [bottom, clockwise ? "\u2190" : "\u2192"]]) {
    const seats = [...row.children];
    seats.slice(1).forEach((seat) => {
      const a = el("span", "turn-arrow", ahead);
      a.setAttribute("aria-hidden", "true");
      seat.before(a);
    });
    const k = seats.length;
    seats.forEach((seat, j) => {
      const x = k > 1 ? (2 * j) / (k - 1) - 1 : 0;  // -1 .. 1 along the row
      seat.style.setProperty("--arc", String(row === top ? x * x : 0));
    });
  }
  // a row that wrapped is no arc and has no arrows (the ring round the discard pile shows the way)
  for (const row of [top, bottom]) {
    const seats = [...row.querySelectorAll(".seat")];
    const wrapped = seats.some((q) => q.offsetTop !== seats[0].offsetTop);
    row.classList.toggle("wrapped", wrapped);
    if (wrapped) seats.forEach((q) => q.style.setProperty("--arc", "0"));
  }
}

function renderHand(cards, view, interactive) {
  const hand = $("hand");
  hand.replaceChildren();
  hand.classList.toggle("deciding", !!interactive);
  hand.classList.toggle("many", cards.length > 11);
  hand.classList.toggle("lots", cards.length > 19);
  const playable = new Set();
  if (interactive) {
    view.choices.forEach((c) => {
      if (c.card && ["play", "discard", "offer"].includes(c.type)) playable.add(c.card);
    });
  }
  cards.forEach((name) => {
    const c = cardEl(name);
    if (playable.has(name)) {
      c.classList.add("playable");
      c.tabIndex = 0;
      c.setAttribute("role", "button");
      c.setAttribute("aria-label", `play ${spoken(name)}`);
      c.addEventListener("click", () => onCard(name));
      c.addEventListener("keydown", (e) => {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); onCard(name); }
      });
    }
    hand.append(c);
  });
  numberKeys();
}

function renderChoices(view) {
  const box = $("choices");
  box.replaceChildren();
  if (view.mode !== "play" || view.over) return;
  view.choices.forEach((c) => {
    if (c.card && ["play", "discard", "offer"].includes(c.type)) return;  // click the card
    const b = el("button", c.type, c.label);
    b.dataset.name = c.name;
    if (c.type === "color") {
      b.classList.add("swatch");
      paintSwatch(b, c.color);
    }
    if (c.type === "take" && c.card) b.prepend(cardEl(c.card, "mini"), " ");
    b.addEventListener("click", () => send(c.name));
    box.append(b);
  });
  numberKeys();
}
// the decision's controls in order (playable cards, then buttons): keys 1-9 and arrows move among them
function controls() {
  const picker = !$("picker").classList.contains("hidden");
  return picker ? [...document.querySelectorAll("#picker-buttons button")]
    : [...document.querySelectorAll("#hand .card.playable, #choices button")];
}
function numberKeys() {
  controls().forEach((e, i) => {
    if (i < 9) e.setAttribute("aria-keyshortcuts", String(i + 1));
    else e.removeAttribute("aria-keyshortcuts");
  });
}
function onKey(e) {
  if (S.mode !== "play" || document.body.dataset.state !== "input") return;
  const tag = e.target.tagName;
  if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
  const list = controls();
  if (!list.length) return;
  if (e.key === "Escape") { closePicker(); return; }
  if (/^[1-9]$/.test(e.key) && Number(e.key) <= list.length) {
    e.preventDefault();
    list[Number(e.key) - 1].click();
  } else if (["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"].includes(e.key)) {
    e.preventDefault();
    const at = list.indexOf(document.activeElement);
    const step = e.key === "ArrowLeft" || e.key === "ArrowUp" ? -1 : 1;
    list[at < 0 ? 0 : (at + step + list.length) % list.length].focus();
  }
}

function renderView(view, table, hand) {
  const t = table || view;
  setColors(view.colors);
  $("felt").classList.toggle("open", !!t.hands);
  renderCenter(t);
  renderSeats(view, t);
  const me = view.mode === "play" || (view.mode === "watch" && view.seat !== null);
  if (me) {
    const interactive = view.mode === "play" && !table && !view.over && view.choices.length > 0;
    renderHand(table ? (hand || view.hand) : view.hand, view, interactive);
    $("prompt").textContent = table || view.mode !== "play" ? "" : view.prompt;
    const who = view.mode === "play" ? `you, player_${view.seat}` : `player_${view.seat} (${shortOf(view, view.seat)})`;
    const size = t.hand_sizes ? t.hand_sizes[view.seat] : view.hand.length;
    const marks = [];
    if (t.uno && t.uno[view.seat]) marks.push("UNO!");
    if (view.rules.options.episode !== "round" && t.scores) marks.push(`${t.scores[view.seat]} pts`);
    $("me-label").textContent = `${who} \u00B7 ${size} card${size === 1 ? "" : "s"} ${marks.join(" \u00B7 ")}`;
    $("me-label").classList.toggle("turn", t.turn === view.seat && !view.over);
  } else {
    $("hand").replaceChildren();
    $("prompt").textContent = "";
    $("me-label").textContent = "";
  }
  if (!table) renderChoices(view);
  else $("choices").replaceChildren();
  renderTurn(view, t, !!table);
}
// whose turn it is, in words: "Your turn", "player_2 is thinking", or who is to play
function renderTurn(view, t, replaying) {
  const box = $("turn");
  box.className = "turn-callout";
  if (view.over || t.turn === undefined || t.turn === null) { box.textContent = ""; return; }
  const name = `player_${t.turn} (${shortOf(view, t.turn)})`;
  if (view.mode === "play" && t.turn === view.seat) {
    box.textContent = replaying ? "You are next" : "Your turn";
    box.classList.add("mine");
  } else if (view.mode === "play") {
    box.textContent = `${name} is thinking`;
    box.classList.add("thinking");
  } else {
    box.textContent = `${name} to play`;
  }
}

// ---------------------------------------------------------------- the agent panel
// A watched or replayed agent's probabilities over its own legal actions, from its own
// observation (the server's thoughts.py; a replay's frame where that seat decides); a played
// game's view never has any.
function renderThoughts(view) {
  const box = $("thoughts");
  const t = view.mode === "play" ? null : view.thoughts;
  box.classList.toggle("hidden", !t);
  if (!t) return;
  $("thoughts-title").textContent = `What player_${t.seat} (${t.short}) thinks`;
  $("thoughts-title").title = t.spec;
  const list = $("thoughts-list");
  list.replaceChildren();
  t.actions.forEach((a) => {
    const li = el("li", a.name === t.chosen ? "chosen" : "");
    const pct = `${(100 * a.p).toFixed(a.p < 0.1 ? 1 : 0)}%`;
    li.setAttribute("aria-label", `${a.name}: ${pct}${a.name === t.chosen ? ", chosen" : ""}`);
    const bar = el("span", "meter");
    const fill = el("span");
    fill.style.width = `${Math.max(1, Math.round(100 * a.p))}%`;
    bar.append(fill);
    li.append(el("span", "act", a.name), bar, el("span", "pct", pct));
    list.append(li);
  });
  const more = t.legal - t.actions.length;
  $("thoughts-note").textContent = `${view.mode === "replay" ? "frame" : "decision"} ${t.decision} \u00B7 ${t.legal} legal move${t.legal === 1 ? "" : "s"}` +
    (more > 0 ? ` (${more} not shown)` : "") + " \u00B7 from its own observation";
}

// ---------------------------------------------------------------- log and banner
function logLine(text, cls, colour) {
  const li = el("li", cls || "");
  if (colour) {
    const dot = el("span", "dot");
    dot.style.background = COLORS[colour];
    li.append(dot);
  }
  li.append(text);
  const log = $("log");
  log.append(li);
  while (log.children.length > 600) log.removeChild(log.firstChild);
  log.scrollTop = log.scrollHeight;
  return li;
}
// the last move by the discard pile; a penalty with the play that caused it
// ("player_1 (greedy) plays wild-draw4 (colour red) \u2192 player_0 (you) draws 4 cards (penalty)")
const CALLOUT_KINDS = ["played", "jumped_in", "drew", "penalty", "caught", "challenged", "took", "discarded"];
function calloutMove(ev) {
  if (!CALLOUT_KINDS.includes(ev.kind)) return;
  const box = $("last-move");
  if (ev.kind === "penalty" && S.lastPlay) box.textContent = `${S.lastPlay} \u2192 ${ev.text}`;
  else box.textContent = ev.text;
  if (ev.kind === "played" || ev.kind === "jumped_in") S.lastPlay = ev.text;
}
function logEvent(ev, view) {
  calloutMove(ev);
  const mine = view.mode === "play" && ev.seat === view.seat;
  let cls = mine ? "mine" : "";
  if (ev.kind === "got") cls = "private";
  if (ev.kind === "round_over" || ev.kind === "game_over" || ev.kind === "dealt") cls += " big";
  logLine(ev.text, cls, ev.color);
}
function showBanner(html, buttons) {
  const b = $("banner");
  b.replaceChildren();
  b.append(el("div", null, html));
  if (buttons && buttons.length) {
    const row = el("div", "buttons");
    buttons.forEach(([label, fn, id]) => {
      const btn = el("button", "primary", label);
      if (id) btn.id = id;
      btn.addEventListener("click", fn);
      row.append(btn);
    });
    b.append(row);
  }
  b.classList.remove("hidden");
}
function hideBanner() { $("banner").classList.add("hidden"); }
// the end of the game: every hand face up, what each card scores, the totals
function revealEl(view) {
  const r = view.reveal;
  const box = el("div", "reveal");
  r.hands.forEach((cards, q) => {
    const row = el("div", "reveal-row");
    const who = view.mode === "play" && q === view.seat ? "you" : `player_${q} (${shortOf(view, q)})`;
    row.append(el("span", "reveal-name", who));
    const hand = el("span", "reveal-cards");
    cards.forEach((c, i) => {
      const cell = el("span", "reveal-card");
      cell.append(cardEl(c, "small"), el("span", "reveal-pts", String(r.points[q][i])));
      hand.append(cell);
    });
    if (!cards.length) hand.append(el("span", "seat-spec", "out"));
    row.append(hand, el("span", "reveal-total", `${r.left[q]} left \u00B7 ${r.scores[q]} pts`));
    row.setAttribute("aria-label", `${who}: ${cards.length ? cards.join(", ") : "no cards"}; ${r.left[q]} points left, ${r.scores[q]} in all`);
    box.append(row);
  });
  return box;
}

function resultText(view) {
  if (view.truncated) return `Stopped after the step limit (max_steps ${view.rules.options.max_steps}): no winner.`;
  const w = view.winner;
  const pts = view.round_points[view.round_winner];
  const ptsText = view.rules.options.scoring === "standard" && pts ? ` (+${pts} points)` : "";
  if (view.mode === "play") {
    return w === view.seat ? `You win!${ptsText}` : `player_${w} (${shortOf(view, w)}) wins${ptsText}.`;
  }
  return `player_${w} (${shortOf(view, w)}) wins${ptsText}.`;
}

// ---------------------------------------------------------------- showing a view
async function showView(view) {
  S.busy = true;
  setState("busy");
  hideBanner();
  S.view = view;
  let dealt = false;  // a new round was dealt: its banner goes with the next table drawn
  for (const ev of view.events) {
    logEvent(ev, view);
    if (ev.kind === "round_over" && !view.over) {
      showBanner(`${ev.text}`);
    }
    if (ev.kind === "dealt") dealt = true;
    if (ev.table) {
      renderView(view, ev.table, ev.hand);
      const long = ev.kind === "round_over" ? 3 : 1;
      await sleep(S.pause * long);
      if (dealt) { hideBanner(); dealt = false; }
    }
  }
  S.skip = false;
  hideBanner();
  renderView(view);
  renderThoughts(view);
  S.busy = false;
  if (view.over) {
    setState("over");
    if ("seed" in view) $("log-title").textContent = `Moves \u00B7 seed ${view.seed}`;
    const buttons = view.mode === "play"
      ? [["New game", newGame, "banner-new"], ["Replay this game", replayThis, "banner-replay"]]
      : [["New game", newGame, "banner-new"]];
    showBanner(resultText(view), buttons);
    if (view.reveal) $("banner").insertBefore(revealEl(view), $("banner").lastChild);
    $("replay-this").disabled = view.mode !== "play";
  } else {
    setState(view.mode === "play" && view.choices.length ? "input" : "idle");
    // keyboard play: the focus goes to the first control of a new decision
    const first = view.mode === "play" && controls()[0];
    if (first && !$("game").contains(document.activeElement)) first.focus({preventScroll: true});
  }
}

// ---------------------------------------------------------------- play
// A request plays the others' moves for a bounded time: while they are still to move
// (progress.waiting), ask the server to play on.
async function playOn(data) {
  const gid = S.game;
  await showView(data.view);
  while (data.progress && data.progress.waiting && S.game === gid && S.mode === "play") {
    setState("busy");
    data = await api("POST", `/api/games/${gid}/step`, {});
    await showView(data.view);
  }
}
async function send(name) {
  if (S.busy || !S.game) return;
  S.busy = true;
  setState("busy");
  closePicker();
  try {
    const data = await api("POST", `/api/games/${S.game}/actions`, {action: name});
    await playOn(data);
  } catch (e) {
    toast(e.message);
    S.busy = false;
    setState("input");
  }
}
function onCard(card) {
  if (S.busy || !S.view) return;
  const cs = S.view.choices.filter((c) => c.card === card && ["play", "discard", "offer"].includes(c.type));
  if (cs.length === 1) send(cs[0].name);
  else if (cs.length > 1) openPicker(card, cs);
}
function openPicker(card, choices) {
  $("picker-title").textContent = `Play ${card}: choose the colour`;
  const box = $("picker-buttons");
  box.replaceChildren();
  choices.forEach((c) => {
    const b = el("button", "swatch", c.color);
    b.dataset.name = c.name;
    paintSwatch(b, c.color);
    b.addEventListener("click", () => send(c.name));
    box.append(b);
  });
  $("picker").classList.remove("hidden");
  numberKeys();
  box.firstChild.focus();
}
function closePicker() { $("picker").classList.add("hidden"); }

// ---------------------------------------------------------------- set-up
function readOptions() {
  const opts = {};
  const preset = S.meta.presets[$("rules").value];
  document.querySelectorAll("[data-opt]").forEach((box) => {
    const key = box.dataset.opt;
    const value = box.dataset.on ? (box.checked ? box.dataset.on : box.dataset.off) : box.checked;
    if (preset[key] !== undefined ? preset[key] !== value : S.meta.defaults[key] !== value) opts[key] = value;
  });
  const more = $("more-options").value.trim();
  if (more) {
    for (const part of more.split(/[,;\n]+/)) {
      const p = part.trim();
      if (!p) continue;
      const i = p.indexOf("=");
      if (i < 1) throw new Error(`option '${p}' must be key=value`);
      const key = p.slice(0, i).trim();
      let value = p.slice(i + 1).trim();
      if (/^-?\d+$/.test(value)) value = parseInt(value, 10);
      else if (value === "true" || value === "false") value = value === "true";
      opts[key] = value;
    }
  }
  return opts;
}
function syncOptions() {
  const preset = S.meta.presets[$("rules").value];
  document.querySelectorAll("[data-opt]").forEach((box) => {
    const key = box.dataset.opt;
    const v = preset[key] !== undefined ? preset[key] : S.meta.defaults[key];
    box.checked = box.dataset.on ? v === box.dataset.on : !!v;
  });
}
function agentSelect(value) {
  const s = el("select");
  s.setAttribute("aria-label", "agent");
  const specs = S.meta.agents.concat(S.meta.checkpoints);
  specs.forEach((spec) => {
    const o = el("option", null, spec);
    o.value = spec;
    s.append(o);
  });
  s.value = specs.includes(value) ? value : "heuristic";
  s.addEventListener("change", syncSeats);
  return s;
}
// The rules the set-up asks for (every option), or null while the "more" field is not key=value.
function chosenRules() {
  let opts;
  try { opts = readOptions(); } catch (e) { return null; }
  return Object.assign({}, S.meta.defaults, S.meta.presets[$("rules").value], opts);
}
// Why a checkpoint cannot play the set-up (its card's player count or rules), or "".
function misfit(spec, n, rules) {
  const card = (S.meta.checkpoint_cards || {})[spec];
  if (!card) return "";
  if (card.error) return "its card cannot be read";
  if (card.num_players !== n) return `trained for ${card.num_players} players`;
  if (!rules) return "";
  const keys = Object.keys(card.rules).filter((k) => !S.meta.ignored_rule_keys.includes(k) && k in rules);
  const diff = keys.filter((k) => JSON.stringify(card.rules[k]) !== JSON.stringify(rules[k]));
  return diff.length ? "trained with " + diff.slice(0, 2).map((k) => `${k}=${JSON.stringify(card.rules[k])}`).join(", ") +
    (diff.length > 2 ? ` (+${diff.length - 2})` : "") : "";
}
// Grey out the policy agents (checkpoint: and pretrained:, each with its card in
// checkpoint_cards) that do not fit the rules and player count, with the reason; Deal waits
// until every seat's agent fits.
function checkFits() {
  const n = S.tab === "watch" ? agentCount() : agentCount() + 1;
  const rules = chosenRules();
  const bad = [];
  $("agents").querySelectorAll("select").forEach((s, i) => {
    [...s.options].forEach((o) => {
      if (!(o.value in (S.meta.checkpoint_cards || {}))) return;
      const why = misfit(o.value, n, rules);
      o.disabled = !!why;
      o.textContent = why ? `${o.value} \u2014 ${why}` : o.value;
      o.title = why;
      if (why && s.value === o.value) bad.push(`${S.tab === "watch" ? "player_" + i : "opponent " + (i + 1)}: ${o.value} is ${why}`);
    });
  });
  $("start").disabled = bad.length > 0;
  $("setup-error").textContent = bad.length ? `Cannot deal: ${bad.join("; ")}.` : "";
}
function agentCount() { return $("agents").querySelectorAll("select").length; }
function setAgents(specs) {
  const box = $("agents");
  box.replaceChildren();
  specs.forEach((spec) => box.append(agentSelect(spec)));
  const minus = el("button", "small", "\u2212");
  minus.type = "button";
  minus.title = "one player less";
  minus.addEventListener("click", () => {
    const sel = box.querySelectorAll("select");
    if (sel.length > (S.tab === "watch" ? 2 : 1)) sel[sel.length - 1].remove();
    syncSeats();
  });
  const plus = el("button", "small", "+");
  plus.type = "button";
  plus.title = "one player more";
  plus.addEventListener("click", () => {
    const sel = box.querySelectorAll("select");
    if (sel.length < (S.tab === "watch" ? 10 : 9)) minus.before(agentSelect(sel[sel.length - 1].value));
    syncSeats();
  });
  box.append(minus, plus);
  syncSeats();
}
function syncSeats() {
  const n = S.tab === "watch" ? agentCount() : agentCount() + 1;
  for (const id of ["seat", "watch-seat", "watch-seat2"]) {
    const s = $(id);
    const old = s.value;
    s.replaceChildren();
    if (id !== "seat") { const o = el("option", null, "every hand"); o.value = "all"; s.append(o); }
    for (let i = 0; i < n; i++) {
      const o = el("option", null, id === "seat" ? `seat ${i}` : `player_${i}'s view`);
      o.value = String(i);
      s.append(o);
    }
    if ([...s.options].some((o) => o.value === old)) s.value = old;
  }
  checkFits();
}
function settings() {
  const body = {rules: $("rules").value, options: readOptions()};
  const seed = $("seed").value.trim();
  if (seed !== "") body.seed = parseInt(seed, 10);
  const specs = [...$("agents").querySelectorAll("select")].map((s) => s.value);
  if (S.tab === "watch") {
    body.mode = "watch";
    body.agents = specs;
    const seat = $("watch-seat").value;
    body.seat = seat === "all" ? "all" : parseInt(seat, 10);
  } else {
    body.opponents = specs;
    body.seat = parseInt($("seat").value, 10);
  }
  return body;
}

async function start(body) {
  $("setup-error").textContent = "";
  setState("busy");
  try {
    const data = await api("POST", "/api/games", body);
    if (S.game && S.game !== data.id) drop("games", S.game, S.token);
    S.game = data.id;
    S.token = data.token;
    S.mode = body.mode === "watch" ? "watch" : "play";
    S.settings = body;
    document.body.dataset.mode = S.mode;
    $("log").replaceChildren();
    $("last-move").textContent = "";
    S.lastPlay = null;
    $("log-title").textContent = "Moves" + ("seed" in data.view ? ` \u00B7 seed ${data.view.seed}` : "");
    show("game");
    $("replay-this").disabled = true;
    S.watch.playing = false;
    $("watch-play").textContent = "Play";
    if (S.mode === "watch") {
      S.watch.seat = String(body.seat);
      $("watch-seat2").value = S.watch.seat;
    }
    await playOn(data);
  } catch (e) {
    $("setup-error").textContent = e.message;
    setState("setup");
  }
}
function newGame() {
  hideBanner();
  stopWatch();
  show(S.tab === "replay" ? "replay-setup" : "setup");
  setState("setup");
}
async function replayThis() {
  if (!S.game) return;
  try {
    const text = await api("GET", `/api/games/${S.game}/log`);
    selectTab("replay", true);
    await openReplay(text);
  } catch (e) { toast(e.message); }
}

// ---------------------------------------------------------------- watch
function stopWatch() {
  S.watch.playing = false;
  $("watch-play").textContent = "Play";
}
async function watchStep() {
  if (S.busy || !S.game || S.mode !== "watch") return;
  if (S.view && S.view.over) { stopWatch(); return; }
  const seat = S.watch.seat === "all" ? "all" : parseInt(S.watch.seat, 10);
  S.busy = true;
  setState("busy");
  try {
    const data = await api("POST", `/api/games/${S.game}/step`, {seat, steps: 1});
    await showView(data.view);
  } catch (e) { toast(e.message); stopWatch(); S.busy = false; setState("idle"); }
}
async function watchLoop() {
  while (S.watch.playing && S.mode === "watch") {
    await watchStep();
    if (S.view && S.view.over) { stopWatch(); break; }
    if (!S.view.events.some((e) => e.table)) await sleep(S.pause);
  }
}

// ---------------------------------------------------------------- replay
async function openReplay(text) {
  $("replay-error").textContent = "";
  document.body.dataset.frame = "";
  setState("busy");
  try {
    const data = await api("POST", "/api/replays", text, true);
    const R = S.replay;
    if (R.id && R.id !== data.id) drop("replays", R.id, R.token);
    R.token = data.token;
    R.id = data.id; R.count = data.count; R.header = data.header; R.texts = data.texts; R.index = 0;
    S.mode = "replay";
    document.body.dataset.mode = "replay";
    $("rp-slider").max = String(R.count - 1);
    $("log").replaceChildren();
    $("log-title").textContent = `${data.header.rules} rules \u00B7 ${data.header.num_players} players \u00B7 ` +
      `${data.header.actions} actions \u00B7 ${data.header.status}`;
    R.texts.forEach((lines, i) => {
      const li = logLine(lines.join(" \u2014 "), i === 0 ? "big" : "");
      li.dataset.index = i;
      li.addEventListener("click", () => gotoFrame(i));
    });
    show("game");
    renderFrame(data.frame, 0);
    setState("idle");
  } catch (e) {
    $("replay-error").textContent = e.message;
    show("replay-setup");
    setState("setup");
  }
}
function renderFrame(frame, i) {
  const R = S.replay;
  R.index = i;
  const h = R.header;
  const t = frame.table;
  const view = {mode: "replay", seat: null, num_players: h.num_players, colors: h.colors,
                rules: {name: h.rules, options: h.options},
                players: h.specs.map((spec, q) => ({spec, short: (h.short || h.specs)[q], known: [], offer: null})),
                specs: h.specs, bottom: h.specs.indexOf("human") >= 0 ? h.specs.indexOf("human") : null,
                over: frame.result.over, winner: frame.result.winner, choices: [], hand: [], prompt: "",
                round_points: frame.result.round_points, round_winner: frame.result.round_winner,
                truncated: frame.result.truncated, thoughts: frame.thoughts};
  renderView(view, t);
  renderThoughts(view);
  $("prompt").textContent = frame.text.join(" \u2014 ");
  $("rp-slider").value = String(i);
  $("rp-pos").textContent = `${i} / ${R.count - 1}`;
  const log = $("log");
  log.querySelectorAll("li.current").forEach((li) => li.classList.remove("current"));
  const li = log.querySelector(`li[data-index="${i}"]`);
  if (li) { li.classList.add("current"); li.scrollIntoView({block: "nearest"}); }
  document.body.dataset.frame = String(i);
  if (frame.result.over) showBanner(resultText(view));
  else hideBanner();
}
async function gotoFrame(i) {
  const R = S.replay;
  if (!R.id) return;
  i = Math.max(0, Math.min(R.count - 1, i));
  R.index = i;  // the frame asked for last wins: quick clicks step on from it
  try {
    const data = await api("GET", `/api/replays/${R.id}/frames/${i}`);
    if (R.index === i) renderFrame(data.frame, i);
  } catch (e) { toast(e.message); }
}
async function replayLoop() {
  const R = S.replay;
  while (R.playing && R.index < R.count - 1 && S.mode === "replay") {
    await gotoFrame(R.index + 1);
    await new Promise((r) => setTimeout(r, parseInt($("rp-speed").value, 10)));
  }
  R.playing = false;
  $("rp-play").textContent = "Play";
}

// ---------------------------------------------------------------- tabs and wiring
function show(section) {
  for (const id of ["setup", "replay-setup", "game"]) $(id).classList.toggle("hidden", id !== section);
  const m = S.mode;
  $("controls-play").classList.toggle("hidden", m !== "play");
  $("controls-watch").classList.toggle("hidden", m !== "watch");
  $("controls-replay").classList.toggle("hidden", m !== "replay");
  if (m === "play") $("thoughts").classList.add("hidden");
}
function selectTab(tab, keep) {
  S.tab = tab;
  document.querySelectorAll(".tab").forEach((b) => b.classList.toggle("active", b.dataset.tab === tab));
  stopWatch();
  S.replay.playing = false;
  if (keep) return;
  hideBanner();
  if (tab === "replay") { show("replay-setup"); setState("setup"); return; }
  $("setup-title").textContent = tab === "watch" ? "Watch agents play each other" : "Play against bots and trained agents";
  $("agents-label").textContent = tab === "watch" ? "Players" : "Opponents";
  $("seat-row").classList.toggle("hidden", tab === "watch");
  $("view-row").classList.toggle("hidden", tab !== "watch");
  $("start").textContent = tab === "watch" ? "Start" : "Deal";
  const count = agentCount();
  if (tab === "watch" && count < 2) setAgents(["heuristic", "random"]);
  else syncSeats();
  show("setup");
  setState("setup");
}
function setPause(ms) {
  S.pause = ms;
  $("pause").value = $("pause2").value = String(ms);
  $("pause-out").textContent = $("pause2-out").textContent = `${ms} ms`;
  try { localStorage.setItem("uno.pause", String(ms)); } catch (e) { /* private mode */ }
}

async function init() {
  S.meta = await api("GET", "/api/meta");
  S.meta.defaults = {};
  S.meta.options.forEach((o) => { S.meta.defaults[o.name] = o.default; });
  const rules = $("rules");
  Object.keys(S.meta.presets).forEach((name) => {
    const o = el("option", null, name);
    o.value = name;
    rules.append(o);
  });
  rules.value = "classic";
  rules.addEventListener("change", () => { syncOptions(); checkFits(); });
  document.querySelectorAll("[data-opt]").forEach((box) => box.addEventListener("change", checkFits));
  $("more-options").addEventListener("input", checkFits);
  syncOptions();
  setAgents(["heuristic"]);
  let pause = 600;
  try { pause = parseInt(localStorage.getItem("uno.pause") || "600", 10); } catch (e) { /* */ }
  setPause(isNaN(pause) ? 600 : pause);
  $("pause").addEventListener("input", (e) => setPause(parseInt(e.target.value, 10)));
  $("pause2").addEventListener("input", (e) => setPause(parseInt(e.target.value, 10)));
  document.querySelectorAll(".tab").forEach((b) => b.addEventListener("click", () => selectTab(b.dataset.tab)));
  $("setup-form").addEventListener("submit", (e) => {
    e.preventDefault();
    let body;
    try { body = settings(); } catch (err) { $("setup-error").textContent = err.message; return; }
    start(body);
  });
  $("animations").addEventListener("change", (e) => document.body.classList.toggle("no-anim", !e.target.checked));
  $("skip").addEventListener("click", () => { S.skip = true; if (S.wake) S.wake(); });
  $("new-game").addEventListener("click", newGame);
  $("replay-this").addEventListener("click", replayThis);
  $("picker-cancel").addEventListener("click", closePicker);
  // watch
  $("speed").addEventListener("input", (e) => {
    $("speed-out").textContent = `${e.target.value} ms`;
    setPause(parseInt(e.target.value, 10));
  });
  $("speed-out").textContent = `${$("speed").value} ms`;
  $("watch-play").addEventListener("click", () => {
    S.watch.playing = !S.watch.playing;
    $("watch-play").textContent = S.watch.playing ? "Pause" : "Play";
    if (S.watch.playing) { setPause(parseInt($("speed").value, 10)); watchLoop(); }
  });
  $("watch-step").addEventListener("click", () => { stopWatch(); watchStep(); });
  $("watch-new").addEventListener("click", newGame);
  $("watch-seat2").addEventListener("change", async (e) => {
    S.watch.seat = e.target.value;
    if (!S.game || S.mode !== "watch") return;
    try {
      const data = await api("GET", `/api/games/${S.game}?seat=${S.watch.seat}`);
      S.view = data.view;
      renderView(data.view);
      renderThoughts(data.view);
    } catch (err) { toast(err.message); }
  });
  // replay
  $("replay-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const f = $("log-file").files[0];
    if (!f) { $("replay-error").textContent = "Choose a game log file first."; return; }
    openReplay(await f.text());
  });
  $("rp-first").addEventListener("click", () => gotoFrame(0));
  $("rp-prev").addEventListener("click", () => gotoFrame(S.replay.index - 1));
  $("rp-next").addEventListener("click", () => gotoFrame(S.replay.index + 1));
  $("rp-last").addEventListener("click", () => gotoFrame(S.replay.count - 1));
  $("rp-slider").addEventListener("input", (e) => gotoFrame(parseInt(e.target.value, 10)));
  $("rp-play").addEventListener("click", () => {
    S.replay.playing = !S.replay.playing;
    $("rp-play").textContent = S.replay.playing ? "Pause" : "Play";
    if (S.replay.playing) replayLoop();
  });
  document.addEventListener("keydown", onKey);
  document.addEventListener("keydown", (e) => {
    if (S.mode !== "replay" || $("game").classList.contains("hidden")) return;
    if (e.target.tagName === "INPUT" && e.target.type !== "range") return;
    if (e.key === "ArrowLeft") { gotoFrame(S.replay.index - 1); e.preventDefault(); }
    else if (e.key === "ArrowRight") { gotoFrame(S.replay.index + 1); e.preventDefault(); }
    else if (e.key === "Home") gotoFrame(0);
    else if (e.key === "End") gotoFrame(S.replay.count - 1);
  });
  // on a phone the move log starts folded (its summary opens it), below the table
  if (window.matchMedia("(max-width: 600px)").matches) $("log-box").open = false;
  selectTab("play");
}

init().catch((e) => toast(`cannot reach the server: ${e.message}`));
