// The backend's client for the components, through React context (it is not plain data: it stays out of the store).
import { createContext, useContext } from 'react';
import type { AppApi } from './backend.ts';

export const ApiContext = createContext<AppApi | null>(null);

export function useApi(): AppApi {
  const api = useContext(ApiContext);
  if (!api) throw new Error('useApi outside ApiContext');
  return api;
}
