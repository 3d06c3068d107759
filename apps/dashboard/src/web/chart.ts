/**
 * A bar chart as SVG, accessible: `role="img"` named by its title, a description summing it up,
 * and each bar's value in its own `<title>`. The caller shows the same figures in a table.
 */
const NS = 'http://www.w3.org/2000/svg';

function svg(tag: string, attributes: Record<string, string | number>, text?: string): SVGElement {
  const element = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  if (text !== undefined) element.textContent = text;
  return element;
}

export interface Bar {
  label: string;
  value: number;
}

export function barChart(
  id: string,
  title: string,
  bars: Bar[],
  format: (value: number) => string,
): SVGElement {
  const width = 640;
  const height = 180;
  const bottom = 24;
  const max = Math.max(...bars.map((b) => b.value), 0);
  const slot = width / Math.max(bars.length, 1);
  const peak = bars.find((b) => b.value === max);
  const chart = svg('svg', {
    class: 'chart',
    id,
    role: 'img',
    viewBox: `0 0 ${width} ${height}`,
    'aria-labelledby': `${id}-title ${id}-desc`,
  });
  chart.append(
    svg('title', { id: `${id}-title` }, title),
    svg(
      'desc',
      { id: `${id}-desc` },
      max > 0 && peak
        ? `${bars.length} days; the most was ${format(max)} on ${peak.label}.`
        : `${bars.length} days; none yet.`,
    ),
  );
  for (const [index, bar] of bars.entries()) {
    const barHeight = max > 0 ? Math.round((bar.value / max) * (height - bottom - 16)) : 0;
    const x = index * slot + slot * 0.15;
    const rect = svg('rect', {
      x: x.toFixed(1),
      y: height - bottom - barHeight,
      width: (slot * 0.7).toFixed(1),
      height: barHeight,
    });
    rect.append(svg('title', {}, `${bar.label}: ${format(bar.value)}`));
    chart.append(rect);
    if (bars.length <= 16 || index % Math.ceil(bars.length / 16) === 0) {
      const label = svg('text', { x: x.toFixed(1), y: height - 6 }, bar.label.slice(5));
      label.setAttribute('aria-hidden', 'true');
      chart.append(label);
    }
  }
  return chart;
}
