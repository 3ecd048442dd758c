/** http only for loopback hosts and the explicit insecure list; https everywhere else. */
export function registryBaseUrl(host: string, insecure: string[]): string {
  const name = host.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  const loopback = name === 'localhost' || /^127\.\d+\.\d+\.\d+$/.test(name) || name === '::1';
  return `${loopback || insecure.includes(host) || insecure.includes(name) ? 'http' : 'https'}://${host}`;
}
