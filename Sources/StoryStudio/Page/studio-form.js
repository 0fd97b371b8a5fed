// MARK: - The variant: the storyboard's parameters as a form, and the rows of --data

let form = null;           // the last /api/parameters
let sendTimer = null;

/** One input for a parameter, typed by its declaration; its value is the variant's. */
function parameterInput(p, value) {
  let input;
  if (p.enum) {
    input = document.createElement('select');
    for (const option of p.enum) input.add(new Option(option, option));
  } else if (p.type === 'file') {
    // A picker of the files in the storyboard's folder: a file parameter may name no other.
    input = document.createElement('select');
    const files = form.files.slice();
    if (value && !files.includes(value)) files.unshift(value);
    for (const file of files) input.add(new Option(file, file));
  } else if (p.type === 'bool') {
    input = document.createElement('input');
    input.type = 'checkbox';
    input.checked = value === 'true';
  } else {
    input = document.createElement('input');
    input.type = p.type === 'number' ? 'number' : p.type === 'url' ? 'url' : 'text';
    if (p.type === 'number') {
      input.step = 'any';
      if (p.min != null) input.min = p.min;
      if (p.max != null) input.max = p.max;
    }
    if (p.default != null) input.placeholder = p.default;
  }
  if (input.type !== 'checkbox') input.value = value == null ? '' : value;
  input.id = 'param-' + p.name;
  input.dataset.parameter = p.name;
  input.dataset.type = p.type;
  const text = input.tagName === 'INPUT' && input.type !== 'checkbox';
  input.addEventListener(text ? 'input' : 'change', () => sendValues(text ? 300 : 0));
  if (p.type !== 'colour') return input;
  // A colour: its text (any colour the storyboard takes) and a swatch that writes #rrggbb.
  const box = document.createElement('span');
  box.className = 'colour';
  const swatch = document.createElement('input');
  swatch.type = 'color';
  if (/^#[0-9a-fA-F]{6}$/.test(input.value)) swatch.value = input.value;
  swatch.addEventListener('input', () => { input.value = swatch.value; sendValues(150); });
  box.append(swatch, input);
  return box;
}

function showForm(answer) {
  form = answer;
  const panel = $('variant-panel');
  panel.hidden = form.parameters.length === 0 && form.rows.length === 0;
  const fields = $('parameter-form');
  fields.replaceChildren();
  for (const p of form.parameters) {
    const label = document.createElement('label');
    label.htmlFor = 'param-' + p.name;
    label.textContent = p.name;
    label.title = p.type + (p.default != null ? ', default ' + p.default : '') +
      (p.min != null ? ', min ' + p.min : '') + (p.max != null ? ', max ' + p.max : '');
    fields.append(label, parameterInput(p, form.values[p.name] != null ? form.values[p.name] : p.default));
  }
  $('row-line').hidden = form.rows.length === 0;
  const select = $('row-select');
  select.replaceChildren(new Option('— the form —', ''));
  for (const row of form.rows) select.add(new Option(row.number + ': ' + row.name, String(row.number)));
  select.value = form.row != null ? String(form.row) : '';
  document.body.dataset.row = form.row != null ? String(form.row) : '';
  document.body.dataset.values = JSON.stringify(form.values);
}

/** The form again after a new version: rebuilt only when the declarations or rows changed (an
 *  edit of the storyboard); a new variant (this page's own choice) keeps the inputs as they are,
 *  so typing is not interrupted. */
async function loadParameters() {
  const response = await fetch(api('/api/parameters'));
  if (!response.ok) return;
  const answer = await response.json();
  const same = form && JSON.stringify(answer.parameters) === JSON.stringify(form.parameters) &&
    JSON.stringify(answer.rows) === JSON.stringify(form.rows) && JSON.stringify(answer.files) === JSON.stringify(form.files);
  if (!same) { showForm(answer); return; }
  form.values = answer.values;
  form.row = answer.row;
  $('row-select').value = answer.row != null ? String(answer.row) : '';
  document.body.dataset.row = answer.row != null ? String(answer.row) : '';
  document.body.dataset.values = JSON.stringify(answer.values);
}

/** The form's values that differ from their defaults (an empty text is "not given"): what
 *  `--set` needs to make this variant. */
function formValues() {
  const values = {};
  const defaults = Object.fromEntries(form.parameters.map(p => [p.name, p.default]));
  for (const input of document.querySelectorAll('#parameter-form [data-parameter]')) {
    const value = input.type === 'checkbox' ? String(input.checked) : input.value;
    if (value !== '' && value !== defaults[input.dataset.parameter]) values[input.dataset.parameter] = value;
  }
  return values;
}

function sendValues(delay) {
  clearTimeout(sendTimer);
  sendTimer = setTimeout(() => choose({ values: formValues() }), delay);
}

/** Asks the studio to show a variant; it answers with the form, or the errors these values make. */
async function choose(body) {
  document.body.dataset.choosing = 'true';
  try {
    const response = await fetch(api('/api/parameters'), { method: 'POST', body: JSON.stringify(body) });
    const answer = await response.json().catch(() => ({ problems: [{ path: '', message: response.statusText }] }));
    if (response.ok) {
      showProblems([]);
      // The form is rebuilt only for a row (its values replace the form's): rebuilt while
      // typing, it would take the caret away.
      if (body.row != null) showForm(answer);
      else { form.values = answer.values; form.row = null; $('row-select').value = '';
             document.body.dataset.row = ''; document.body.dataset.values = JSON.stringify(answer.values); }
    } else {
      showProblems(answer.problems || []);
    }
  } finally {
    document.body.dataset.choosing = 'false';
  }
}

$('row-select').addEventListener('change', () => {
  const value = $('row-select').value;
  if (value) choose({ row: Number(value) });
  else choose({ values: formValues() });
});
$('parameter-form').addEventListener('submit', event => event.preventDefault());

/*LANES_SCRIPT*/

(async () => {
  await loadState();
  await loadParameters();
  setUpLanes();
  connect();
  document.body.dataset.ready = 'true';
})();

// The platforms' UI zones (PlatformSafeZones, the table render and check-layout use), drawn
// over the picture as a guide: fractions of the frame, so they follow the picture's size.
const SAFE_ZONES = /*SAFE_ZONES*/;
function drawSafeZones() {
  const layer = $('zones'), picture = $('frame');
  layer.replaceChildren();
  Object.assign(layer.style, { left: picture.offsetLeft + 'px', top: picture.offsetTop + 'px',
                               width: picture.offsetWidth + 'px', height: picture.offsetHeight + 'px' });
  const name = $('safe-zones').value;
  document.body.dataset.safeZones = name;
  for (const zone of SAFE_ZONES[name] || []) {
    const box = document.createElement('div');
    box.title = name + ': ' + zone.name;
    Object.assign(box.style, { left: zone.x[0] * 100 + '%', width: (zone.x[1] - zone.x[0]) * 100 + '%',
                               top: zone.y[0] * 100 + '%', height: (zone.y[1] - zone.y[0]) * 100 + '%' });
    layer.appendChild(box);
  }
}
$('safe-zones').addEventListener('change', drawSafeZones);
$('frame').addEventListener('load', drawSafeZones);
window.addEventListener('resize', drawSafeZones);
