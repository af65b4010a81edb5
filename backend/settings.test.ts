import { describe, expect, it } from 'vitest';
import { RpcError } from '../core/rpc.ts';
import { ApiErrorCode } from '../core/api-codes.ts';
import { SettingsError, bytesTtlFromEnv, durationSettings, durationsFromEnv } from './settings.ts';

describe('the FURROW_* settings', () => {
  it('reads the durations and the answer cap, unset or empty leaving the defaults', () => {
    expect(durationsFromEnv({})).toEqual({});
    expect(durationsFromEnv({ FURROW_SETTLE_MS: ' 300 ', FURROW_MAX_WAIT_MS: '0', FURROW_HTTP_TIMEOUT_MS: '', FURROW_HTTP_DEADLINE_MS: '3600000', FURROW_MAX_ANSWER_BYTES: '1048576' }))
      .toEqual({ settleMs: 300, maxWaitMs: 0, deadlineMs: 3_600_000, maxAnswerBytes: 1_048_576 });
  });

  it('refuses a bad value naming the variable, its unit, its range and the value', () => {
    for (const [name, value, range] of [
      ['FURROW_SETTLE_MS', 'abc', '0 to 3600000'], ['FURROW_MAX_WAIT_MS', '-5', '0 to 86400000'], ['FURROW_HTTP_TIMEOUT_MS', '0', '1 to 3600000'],
      ['FURROW_HTTP_DEADLINE_MS', '1.5', '1 to 3600000'], ['FURROW_MAX_WAIT_MS', '999999999999', '0 to 86400000'],
    ] as const) {
      const err = (() => { try { durationsFromEnv({ [name]: value }); } catch (e) { return e; } })();
      expect(err, `${name}=${value}`).toBeInstanceOf(SettingsError);
      expect(err).toMatchObject({ variable: name, message: `${name} (milliseconds) must be a whole number from ${range} (got '${value}')` });
    }
    expect(() => durationsFromEnv({ FURROW_MAX_ANSWER_BYTES: 'big' })).toThrow("FURROW_MAX_ANSWER_BYTES (bytes) must be a whole number from 1048576 to 2147483648 (got 'big')");
  });

  it("refuses an API call that needs a bad one with bad_setting, for the app to say", () => {
    expect(durationSettings({ FURROW_SETTLE_MS: '5' })).toEqual({ settleMs: 5 });
    const err = (() => { try { durationSettings({ FURROW_HTTP_TIMEOUT_MS: 'soon' }); } catch (e) { return e; } })();
    expect(err).toBeInstanceOf(RpcError);
    expect(err).toMatchObject({ code: ApiErrorCode.badSetting, details: { variable: 'FURROW_HTTP_TIMEOUT_MS' }, message: expect.stringContaining("FURROW_HTTP_TIMEOUT_MS (milliseconds) must be a whole number from 1 to 3600000 (got 'soon')") });
  });

  it('reads how long a download stays readable, and refuses a bad value as the durations do', () => {
    expect(bytesTtlFromEnv({})).toBeUndefined();
    expect(bytesTtlFromEnv({ FURROW_BYTES_TTL_MS: ' 4000 ' })).toBe(4000);
    for (const value of ['-5', '1e3', 'soon', '0']) {
      expect(() => bytesTtlFromEnv({ FURROW_BYTES_TTL_MS: value }), value).toThrow(SettingsError);
    }
  });
});
