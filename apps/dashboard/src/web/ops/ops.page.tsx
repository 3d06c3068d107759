import { Title } from '@mantine/core';
import { FilterForm, QuerySelect, QueryText } from '../filters.js';
import { useApi } from '../use-api.js';
import { Async, Page } from '../ui.js';
import { CostChart } from './cost-chart.js';
import {
  DaysTable,
  GroupTable,
  QueueTable,
  RunsTables,
  Tiles,
  usd,
  type Ops,
} from './ops-tables.js';

function OpsBody({ ops }: { ops: Ops }) {
  return (
    <>
      <Tiles ops={ops} />
      <Title order={2}>Queue</Title>
      <QueueTable ops={ops} />
      <Title order={2}>Cost per day</Title>
      <CostChart days={ops.days} format={usd} />
      <DaysTable ops={ops} />
      <Title order={2}>By repository and person</Title>
      <GroupTable caption="By repository" first="Repository" groups={ops.byRepository} />
      <GroupTable caption="By person" first="Person" groups={ops.byPerson} />
      <Title order={2}>Runs</Title>
      <RunsTables ops={ops} />
    </>
  );
}

/** Ops and cost over a window of UTC days: tiles, a cost chart, and the tables behind them. */
export function OpsPage({ query }: { query: URLSearchParams }) {
  const params = new URLSearchParams({ days: query.get('days') ?? '14' });
  const until = query.get('until');
  if (until) params.set('until', until);
  const ops = useApi<Ops>(`/api/ops?${params.toString()}`);
  return (
    <Page title="Ops and cost">
      <FilterForm
        key={params.toString()}
        page="ops"
        label="window"
        names={['days', 'until']}
        button="Show"
      >
        <QuerySelect
          query={query}
          name="days"
          label="Days"
          options={['7', '14', '30', '90']}
          fallback="14"
        />
        <QueryText query={query} name="until" label="Until" type="date" />
      </FilterForm>
      <Async loaded={ops}>{(data) => <OpsBody ops={data} />}</Async>
    </Page>
  );
}
