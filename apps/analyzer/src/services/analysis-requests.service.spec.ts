import { AnalyzeReviewStyleV1 } from '@caravel/contracts';
import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { AnalysisRequestsService } from './analysis-requests.service.js';

describe('analysis requests when analyses are off', () => {
  afterEach(() => jest.restoreAllMocks());

  it('says so once at start and warns per request with the repository and the reason', async () => {
    const info: string[] = [];
    const warnings: string[] = [];
    jest
      .spyOn(Logger.prototype, 'log')
      .mockImplementation((m: unknown) => void info.push(String(m)));
    jest
      .spyOn(Logger.prototype, 'warn')
      .mockImplementation((m: unknown) => void warnings.push(String(m)));
    const reason = 'no analyzer model is configured (set ANALYZER_MODEL or CARAVEL_MODEL)';
    const service = new AnalysisRequestsService(null, reason);
    service.onModuleInit();
    expect(await service.onRequested(AnalyzeReviewStyleV1.fixture())).toBeNull();
    expect(info).toEqual([`review-style analyses are off: ${reason}`]);
    expect(warnings).toEqual([`acme/widgets: bootstrap analysis not run: ${reason}`]);
  });
});
