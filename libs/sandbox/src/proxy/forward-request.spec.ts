import { outgoingHeaders } from './forward-request.js';

describe("a forwarded request's headers", () => {
  const incoming = {
    host: 'github.com',
    authorization: 'Basic c2FuZGJveDpjaG9zZW4=',
    'proxy-authorization': 'Basic cHJveHk=',
    'git-protocol': 'version=2',
  };
  const target = new URL('https://github.com/psf/requests/git-upload-pack');

  it("replace the sandbox's Authorization with the proxy's, drop it, or keep it as asked", () => {
    expect(outgoingHeaders(incoming, target, 'Bearer real')).toEqual({
      host: 'github.com',
      authorization: 'Bearer real',
      'git-protocol': 'version=2',
    });
    expect(outgoingHeaders(incoming, target, null)).toEqual({
      host: 'github.com',
      'git-protocol': 'version=2',
    });
    expect(outgoingHeaders(incoming, target, undefined)).toMatchObject({
      authorization: 'Basic c2FuZGJveDpjaG9zZW4=',
    });
  });
});
