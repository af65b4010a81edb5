import { describe, expect, it } from 'vitest';
import { RpcCode, RpcError } from '../../../core/rpc.ts';
import { ApiErrorCode } from '../../../core/api-codes.ts';
import { connectProblem, serviceAddress, unsyncedSummary } from './connect-errors.ts';

describe('serviceAddress', () => {
  it('keeps an http(s) address without its trailing slashes', () => {
    expect(serviceAddress(' https://parcels.example.org/// ')).toEqual({ url: 'https://parcels.example.org' });
    expect(serviceAddress('http://127.0.0.1:8080')).toEqual({ url: 'http://127.0.0.1:8080' });
  });
  it('says what to type for a host alone, another scheme, or credentials in the address', () => {
    expect(serviceAddress('parcels.example')).toEqual({ problem: expect.stringMatching(/not a service address: type it whole, like http:\/\//) });
    expect(serviceAddress('ftp://parcels.example')).toEqual({ problem: expect.stringMatching(/http:\/\/ or https:\/\/ \(not ftp:\)/) });
    expect(serviceAddress('https://me:secret@parcels.example')).toEqual({ problem: expect.stringMatching(/Leave the user name and password out/) });
  });
});

describe('connectProblem', () => {
  const url = 'http://127.0.0.1:8080';
  it('a refused key says to check the key and the account', () => {
    const err = new RpcError(ApiErrorCode.connectRefused, 'The service refused the credentials: invalid API key', { reason: 'refused' });
    expect(connectProblem(err, url)).toBe('The service refused the credentials: invalid API key. Check the API key and the account id (or the token): they must be the ones this service issued.');
  });
  it('a reason that ends with a full stop gets no second one', () => {
    const err = new RpcError(ApiErrorCode.connectRefused, 'The service refused the credentials: Invalid API key.', { reason: 'refused' });
    expect(connectProblem(err, url)).toMatch(/^The service refused the credentials: Invalid API key\. Check/);
  });
  it('bad input says to correct the form', () => {
    const err = new RpcError(ApiErrorCode.connectRefused, 'The token is not an account_access token', { reason: 'bad_input' });
    expect(connectProblem(err, url)).toMatch(/^The token is not an account_access token\. Correct the form/);
    expect(connectProblem(new RpcError(RpcCode.invalidArguments, 'connect: /account too long'), url)).toMatch(/^Some fields are not accepted/);
  });
  it('an unreachable service names the address and what to check', () => {
    const err = new RpcError(RpcCode.internal, 'GET /api/farms/: could not connect (ECONNREFUSED)');
    expect(connectProblem(err, url)).toBe(`Could not reach ${url} (GET /api/farms/: could not connect (ECONNREFUSED)). Check the address, that the service is running and that this computer is online.`);
  });
  it('anything else is shown as it came', () => {
    expect(connectProblem(new Error('boom'), url)).toBe('Could not connect: boom');
  });
});

it('unsyncedSummary lists the refusal counts', () => {
  expect(unsyncedSummary({ total: 3, byState: { pending: 2, in_flight: 1 }, conflicts: 1 })).toBe('2 pending, 1 in flight, 1 open conflict(s)');
  expect(unsyncedSummary(undefined)).toBe('unsynced changes');
});
