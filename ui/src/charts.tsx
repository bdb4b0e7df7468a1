import { money } from "./format.js";

export interface Bar {
  label: string;
  value: number;
  /** What the bar's tooltip says. */
  title: string;
}

/** Vertical bars, one per item (turns), inline SVG scaled to the largest. */
export function Columns({ bars, caption }: { bars: Bar[]; caption: string }) {
  const width = 320;
  const height = 64;
  const max = Math.max(...bars.map((bar) => bar.value), 0);
  const step = bars.length > 0 ? width / bars.length : width;
  return (
    <figure class="chart">
      <figcaption>{caption}</figcaption>
      <svg viewBox={`0 0 ${width} ${height}`} width={width} height={height} role="img" aria-label={caption}>
        {max > 0 &&
          bars.map((bar, index) => {
            const h = Math.max(1, (bar.value / max) * (height - 2));
            return (
              <rect key={index} x={index * step} y={height - h} width={Math.max(0.5, step * 0.8)} height={h}>
                <title>{bar.title}</title>
              </rect>
            );
          })}
      </svg>
    </figure>
  );
}

/** Horizontal bars of dollar amounts by name (model, subagent, day). */
export function CostBars({ items, caption }: { items: [string, number][]; caption: string }) {
  const max = Math.max(...items.map(([, value]) => value), 0);
  return (
    <figure class="chart">
      <figcaption>{caption}</figcaption>
      {items.length === 0 ? (
        <div class="muted">nothing spent</div>
      ) : (
        <svg
          viewBox={`0 0 320 ${items.length * 18}`}
          width={320}
          height={items.length * 18}
          role="img"
          aria-label={caption}
        >
          {items.map(([name, value], index) => (
            <g key={name} transform={`translate(0 ${index * 18})`}>
              <rect x={0} y={3} height={12} width={max > 0 ? Math.max(1, (value / max) * 150) : 1} />
              <text x={156} y={13}>
                {`${money(value)}  ${name}`}
              </text>
            </g>
          ))}
        </svg>
      )}
    </figure>
  );
}
