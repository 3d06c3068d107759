import { useComputedColorScheme } from '@mantine/core';
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';

export interface DayCost {
  day: string;
  costUsd: number;
}

const COLORS = {
  light: { bar: '#1864ab', text: '#343a40', grid: '#ced4da' },
  dark: { bar: '#74c0fc', text: '#dee2e6', grid: '#495057' },
};

/**
 * Cost per UTC day as bars (recharts). For assistive technology the chart is one image named by
 * its title and summed up in its description; the table beside it has every figure.
 */
export function CostChart(props: { days: DayCost[]; format: (usd: number) => string }) {
  const { days, format } = props;
  const colors = COLORS[useComputedColorScheme('light')];
  const peak = days.reduce<DayCost | null>(
    (top, d) => (top && top.costUsd >= d.costUsd ? top : d),
    null,
  );
  const summary =
    peak && peak.costUsd > 0
      ? `${days.length} days; the most was ${format(peak.costUsd)} on ${peak.day}.`
      : `${days.length} days; none yet.`;
  return (
    <figure
      className="chart"
      role="img"
      aria-labelledby="cost-chart-title"
      aria-describedby="cost-chart-desc"
    >
      <figcaption id="cost-chart-title">Cost per day (US dollars)</figcaption>
      <p id="cost-chart-desc" className="visually-hidden">
        {summary}
      </p>
      <ResponsiveContainer width="100%" height={220}>
        <BarChart
          data={days}
          accessibilityLayer={false}
          margin={{ top: 8, right: 8, left: 8, bottom: 0 }}
        >
          <CartesianGrid stroke={colors.grid} vertical={false} />
          <XAxis
            dataKey="day"
            tickFormatter={(day: string) => day.slice(5)}
            stroke={colors.text}
            tick={{ fill: colors.text }}
          />
          <YAxis
            tickFormatter={format}
            stroke={colors.text}
            tick={{ fill: colors.text }}
            width={72}
          />
          <Tooltip formatter={(value) => format(Number(value))} />
          <Bar dataKey="costUsd" name="cost" fill={colors.bar} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </figure>
  );
}
