import { expect } from 'chai';
import { EMPTY_PAYLOAD_SHA256, encodeS3Path, signS3Request, uriEncode } from '../src/sigv4';

/**
 * The worked examples of the Amazon S3 API Reference, "Signature Calculations
 * for the Authorization Header: Transferring Payload in a Single Chunk"
 * (examplebucket, 2013-05-24, the documentation's example key pair).
 */
const scope = {
  credentials: {
    accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
    secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  },
  region: 'us-east-1',
  now: new Date('2013-05-24T00:00:00Z'),
};
const host = 'examplebucket.s3.amazonaws.com';
const credential = 'Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request';

describe('SigV4 signing (AWS documented examples)', () => {
  it('GET Object with a Range header', () => {
    const signed = signS3Request(
      {
        method: 'GET',
        host,
        path: encodeS3Path('test.txt'),
        headers: { Range: 'bytes=0-9' },
        payloadSha256: EMPTY_PAYLOAD_SHA256,
      },
      scope,
    );
    expect(signed.stringToSign.split('\n').at(-1)).to.equal(
      '7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972',
    );
    expect(signed.authorization).to.equal(
      `AWS4-HMAC-SHA256 ${credential},SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,` +
        'Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    );
    expect(signed.headers).to.include({ 'x-amz-date': '20130524T000000Z', range: 'bytes=0-9' });
  });

  it('PUT Object with a key that needs encoding ($) and a storage class', () => {
    const signed = signS3Request(
      {
        method: 'PUT',
        host,
        path: encodeS3Path('test$file.text'),
        headers: { Date: 'Fri, 24 May 2013 00:00:00 GMT', 'x-amz-storage-class': 'REDUCED_REDUNDANCY' },
        payloadSha256: '44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072',
      },
      scope,
    );
    expect(signed.canonicalRequest.split('\n')[1]).to.equal('/test%24file.text');
    expect(signed.authorization).to.equal(
      `AWS4-HMAC-SHA256 ${credential},SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class,` +
        'Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd',
    );
  });

  it('GET Bucket lifecycle (a query parameter without a value)', () => {
    const signed = signS3Request(
      { method: 'GET', host, path: '/', query: [['lifecycle', '']], payloadSha256: EMPTY_PAYLOAD_SHA256 },
      scope,
    );
    expect(signed.canonicalRequest.split('\n')[2]).to.equal('lifecycle=');
    expect(signed.authorization).to.match(
      /Signature=fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543$/,
    );
  });

  it('List Objects (query parameters sorted by name)', () => {
    const signed = signS3Request(
      {
        method: 'GET',
        host,
        path: '/',
        query: [
          ['prefix', 'J'],
          ['max-keys', '2'],
        ],
        payloadSha256: EMPTY_PAYLOAD_SHA256,
      },
      scope,
    );
    expect(signed.canonicalRequest.split('\n')[2]).to.equal('max-keys=2&prefix=J');
    expect(signed.authorization).to.match(
      /Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7$/,
    );
  });

  it('signs a session token when the credentials carry one', () => {
    const signed = signS3Request(
      { method: 'GET', host, path: '/k', payloadSha256: EMPTY_PAYLOAD_SHA256 },
      { ...scope, credentials: { ...scope.credentials, sessionToken: 'token/with+chars' } },
    );
    expect(signed.headers['x-amz-security-token']).to.equal('token/with+chars');
    expect(signed.authorization).to.contain(
      'SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token,',
    );
  });

  it('encodes everything but unreserved characters, and slashes only in paths', () => {
    expect(uriEncode('a b/c~d_e-f.g*h+i=é')).to.equal('a%20b%2Fc~d_e-f.g%2Ah%2Bi%3D%C3%A9');
    expect(encodeS3Path('bucket', 'models/a b/w.bin')).to.equal('/bucket/models/a%20b/w.bin');
  });
});
