/**
 * A sign-in at the test provider driven by HTTP, as a browser would do it (its cookies, its
 * forms), stopped where the provider sends the browser back: the callback URL (with its code
 * and state) is returned, not followed, so a test can send it as it likes.
 */
export async function authorizeByHttp(
  webBaseUrl: string,
  login: string,
): Promise<{ callback: URL; signInCookie: string }> {
  const jar = new Map<string, Map<string, string>>();
  const cookieHeader = (url: URL) =>
    [...(jar.get(url.host) ?? new Map<string, string>()).entries()]
      .map(([name, value]) => `${name}=${value}`)
      .join('; ');
  const keep = (url: URL, response: Response) => {
    const cookies = jar.get(url.host) ?? new Map<string, string>();
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    jar.set(url.host, cookies);
  };
  const send = async (url: URL, init: RequestInit = {}) => {
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), cookie: cookieHeader(url) },
    });
    keep(url, response);
    return response;
  };
  let url = new URL('/api/auth/login', webBaseUrl);
  let response = await send(url);
  for (let step = 0; step < 20; step += 1) {
    const location = response.headers.get('location');
    if (location !== null) {
      const next = new URL(location, url);
      if (next.href.startsWith(`${webBaseUrl}/api/auth/callback`)) {
        const signInCookie = cookieHeader(new URL(webBaseUrl));
        return { callback: next, signInCookie };
      }
      url = next;
      response = await send(url);
      continue;
    }
    // A page of the provider: its login form, then its consent form.
    const page = await response.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
    const prompt = /name="prompt" value="(\w+)"/.exec(page)?.[1];
    if (action === undefined || prompt === undefined)
      throw new Error(`the provider answered ${response.status} without a form: ${page.slice(0, 300)}`);
    const fields = new URLSearchParams({ prompt, ...(prompt === 'login' ? { login, password: 'any password' } : {}) });
    url = new URL(action, url);
    response = await send(url, {
      method: 'POST',
      body: fields.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
  }
  throw new Error('the provider never sent the browser back');
}
