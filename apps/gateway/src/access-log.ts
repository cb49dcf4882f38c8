/** Which requests get an access-log line (LUNANEXA_GATEWAY_ACCESS_LOG). */
export const ACCESS_LOG_MODES = ['all', 'errors', 'none'] as const;
export type AccessLogMode = (typeof ACCESS_LOG_MODES)[number];
