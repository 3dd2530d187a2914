// A small ICU MessageFormat subset, formatted with the browser's Intl: the web app's catalogue
// messages (js/i18n.js), the same subset the server (Sources/Localization) and the catalogue
// checks (Tests/E2E/test_p_catalogues.py) read; Tests/MessageFormat/cases.json holds the cases
// all of them are tested against. It imports nothing and touches no page, so node --test runs
// it as it is (Tests/JS).

// {name}, {n, number}, {n, plural, =0 {…} one {# …} other {…}}, {k, select, a {…} other {…}};
// an apostrophe before a brace (or # in a plural) quotes it, '' is one apostrophe, any other
// apostrophe is itself ("Don't").

const parsed = new Map();

function parseMessage(text) {
  let position = 0;

  function literalUntil(stops, inPlural) {
    let out = '';
    while (position < text.length) {
      const char = text[position];
      if (char === "'") {
        const next = text[position + 1];
        if (next === "'") { out += "'"; position += 2; continue; }
        if (next === '{' || next === '}' || (inPlural && next === '#')) {
          const end = text.indexOf("'", position + 1);
          out += end < 0 ? text.slice(position + 1) : text.slice(position + 1, end);
          position = end < 0 ? text.length : end + 1;
          continue;
        }
      }
      if (stops.includes(char)) break;
      out += char;
      position += 1;
    }
    return out;
  }

  function skipSpace() {
    while (position < text.length && /\s/.test(text[position])) position += 1;
  }

  function word() {
    skipSpace();
    const start = position;
    while (position < text.length && !/[\s,{}]/.test(text[position])) position += 1;
    return text.slice(start, position);
  }

  function expect(char) {
    skipSpace();
    if (text[position] !== char) throw new SyntaxError(`expected "${char}" at ${position} in ${JSON.stringify(text)}`);
    position += 1;
  }

  // Parts until the end or the closing brace of the enclosing option.
  function parts(inPlural) {
    const list = [];
    while (position < text.length && text[position] !== '}') {
      const stops = inPlural ? '{}#' : '{}';
      const literal = literalUntil(stops, inPlural);
      if (literal) list.push(literal);
      if (position >= text.length || text[position] === '}') break;
      if (text[position] === '#') { list.push({ type: 'pound' }); position += 1; continue; }
      position += 1; // '{'
      list.push(argument());
    }
    return list;
  }

  function argument() {
    const name = word();
    skipSpace();
    if (text[position] === '}') { position += 1; return { type: 'arg', name }; }
    expect(',');
    const kind = word();
    skipSpace();
    if (text[position] === '}') { position += 1; return { type: kind === 'number' ? 'number' : 'arg', name }; }
    expect(',');
    if (kind !== 'plural' && kind !== 'select') throw new SyntaxError(`unknown argument type "${kind}" in ${JSON.stringify(text)}`);
    const options = {};
    for (;;) {
      skipSpace();
      if (text[position] === '}') { position += 1; break; }
      const selector = word();
      if (!selector) throw new SyntaxError(`unfinished ${kind} in ${JSON.stringify(text)}`);
      expect('{');
      options[selector] = parts(kind === 'plural');
      expect('}');
    }
    if (!options.other) throw new SyntaxError(`${kind} without "other" in ${JSON.stringify(text)}`);
    return { type: kind, name, options };
  }

  const result = parts(false);
  if (position < text.length) throw new SyntaxError(`unexpected "}" at ${position} in ${JSON.stringify(text)}`);
  return result;
}

function compiled(text) {
  let message = parsed.get(text);
  if (!message) {
    message = parseMessage(text);
    parsed.set(text, message);
  }
  return message;
}

const numberFormats = new Map();
const pluralRules = new Map();

export function formatNumberIn(locale, value) {
  if (!numberFormats.has(locale)) numberFormats.set(locale, new Intl.NumberFormat(locale));
  return numberFormats.get(locale).format(value);
}

function pluralCategory(locale, value) {
  if (!pluralRules.has(locale)) pluralRules.set(locale, new Intl.PluralRules(locale));
  return pluralRules.get(locale).select(value);
}

function render(list, params, locale, count) {
  let out = '';
  for (const part of list) {
    if (typeof part === 'string') { out += part; continue; }
    if (part.type === 'pound') { out += count === undefined ? '#' : formatNumberIn(locale, count); continue; }
    const value = params ? params[part.name] : undefined;
    if (part.type === 'plural') {
      const number = Number(value);
      const option = part.options[`=${number}`] || part.options[pluralCategory(locale, number)] || part.options.other;
      out += render(option, params, locale, number);
    } else if (part.type === 'select') {
      out += render(part.options[String(value)] || part.options.other, params, locale, count);
    } else if (value === undefined || value === null) {
      out += `{${part.name}}`;
    } else {
      out += typeof value === 'number' ? formatNumberIn(locale, value) : String(value);
    }
  }
  return out;
}

/** One message formatted for `locale`: the ICU subset above, numbers as Intl.NumberFormat. */
export function formatMessage(message, params = {}, locale = 'en') {
  return render(compiled(message), params, locale);
}
