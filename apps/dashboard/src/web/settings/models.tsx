import { Table } from '@mantine/core';
import type { z } from 'zod';
import type { supportedModelResponse } from '../../api/schemas.js';
import { useApi } from '../use-api.js';
import { AsyncTable, Section } from '../ui.js';

type SupportedModel = z.output<typeof supportedModelResponse>;

const dollars = (perMillion: number) => `$${perMillion.toFixed(2)}`;

/** What a model setting may name: the table every model field of Settings is checked against. */
export function ModelsSection() {
  const rows = useApi<SupportedModel[]>('/api/models');
  return (
    <Section
      id="models-title"
      title="Supported models"
      note="A model setting names one as provider:id. Prices are per million tokens."
    >
      <AsyncTable
        loaded={rows}
        className="models"
        empty="No model is supported."
        columns={['Model', 'Name', 'Context', 'Input', 'Output', 'Reasoning effort']}
        row={(m) => (
          <Table.Tr key={`${m.provider}:${m.modelId}`}>
            <Table.Td>{`${m.provider}:${m.modelId}`}</Table.Td>
            <Table.Td>{m.label}</Table.Td>
            <Table.Td>{m.contextWindow?.toLocaleString('en') ?? 'the endpoint’s'}</Table.Td>
            <Table.Td>{dollars(m.inputPricePerMillion)}</Table.Td>
            <Table.Td>{dollars(m.outputPricePerMillion)}</Table.Td>
            <Table.Td>
              {m.effortLevels.length
                ? `${m.effortLevels.join(', ')} (default ${m.defaultEffort ?? '—'})`
                : '—'}
            </Table.Td>
          </Table.Tr>
        )}
      />
    </Section>
  );
}
