/* scram_crypto — the primitives SCRAM-SHA-256 is built from: base64, Hi()
 * (PBKDF2-HMAC-SHA-256), HMAC, SHA-256, random bytes and nonces.
 *
 * Design notes: the hash work is OpenSSL's; base64 is our own because
 * EVP_DecodeBlock skips blanks and hides padding, and a SCRAM attribute must
 * be refused when it is not exactly the canonical encoding of its bytes.
 */
#include <string.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include "util/util.h"

static const char b64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t scram_b64_encoded_len(size_t n) { return (n + 2) / 3 * 4; }

void scram_b64_encode(const uint8_t *in, size_t n, char *out)
{
  size_t o = 0;
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = (uint32_t)in[i] << 16;
    if (i + 1 < n)
      v |= (uint32_t)in[i + 1] << 8;
    if (i + 2 < n)
      v |= in[i + 2];
    out[o++] = b64_alphabet[v >> 18 & 63];
    out[o++] = b64_alphabet[v >> 12 & 63];
    out[o++] = i + 1 < n ? b64_alphabet[v >> 6 & 63] : '=';
    out[o++] = i + 2 < n ? b64_alphabet[v & 63] : '=';
  }
  out[o] = '\0';
}

static int b64_value(char c)
{
  const char *p = c ? strchr(b64_alphabet, c) : NULL;
  return p ? (int)(p - b64_alphabet) : -1;
}

long scram_b64_decode(const char *in, size_t len, uint8_t *out)
{
  if (len % 4 != 0)
    return -1;
  size_t o = 0;
  for (size_t i = 0; i < len; i += 4) {
    bool last = i + 4 == len;
    int pad = last ? (in[i + 3] == '=') + (in[i + 2] == '=' && in[i + 3] == '=') : 0;
    uint32_t v = 0;
    for (int k = 0; k < 4 - pad; k++) {
      int d = b64_value(in[i + k]);
      if (d < 0)
        return -1;
      v |= (uint32_t)d << (18 - 6 * k);
    }
    /* Canonical form only: the bits a pad hides must be zero. */
    if ((pad == 1 && (v & 0xFF)) || (pad == 2 && (v & 0xFFFF)))
      return -1;
    out[o++] = (uint8_t)(v >> 16);
    if (pad < 2)
      out[o++] = (uint8_t)(v >> 8);
    if (pad < 1)
      out[o++] = (uint8_t)v;
  }
  return (long)o;
}

char *scram_b64_arena(arena_t *a, const uint8_t *in, size_t n)
{
  char *s = arena_alloc(a, scram_b64_encoded_len(n) + 1);
  scram_b64_encode(in, n, s);
  return s;
}

int scram_salted_password(const char *password, const uint8_t *salt, size_t salt_len,
                          int iterations, uint8_t out[SCRAM_KEY_LEN], err_t *e)
{
  if (iterations < 1)
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "SCRAM iteration count %d", iterations);
  if (!PKCS5_PBKDF2_HMAC(password, (int)strlen(password), salt, (int)salt_len, iterations,
                         EVP_sha256(), SCRAM_KEY_LEN, out))
    return err_set(e, SQLSTATE_INTERNAL, "PKCS5_PBKDF2_HMAC failed");
  return CZ_OK;
}

void scram_hmac(const uint8_t key[SCRAM_KEY_LEN], const void *msg, size_t len,
                uint8_t out[SCRAM_KEY_LEN])
{
  unsigned int outlen = SCRAM_KEY_LEN;
  HMAC(EVP_sha256(), key, SCRAM_KEY_LEN, msg, len, out, &outlen);
}

void scram_sha256(const void *msg, size_t len, uint8_t out[SCRAM_KEY_LEN])
{
  SHA256(msg, len, out);
}

int scram_random(uint8_t *out, size_t n, err_t *e)
{
  if (RAND_bytes(out, (int)n) != 1)
    return err_set(e, SQLSTATE_INTERNAL, "could not generate random bytes");
  return CZ_OK;
}

const char *scram_random_nonce(arena_t *a, err_t *e)
{
  uint8_t raw[18]; /* PostgreSQL's SCRAM_RAW_NONCE_LEN */
  if (scram_random(raw, sizeof raw, e) != CZ_OK)
    return NULL;
  return scram_b64_arena(a, raw, sizeof raw);
}

bool scram_nonce_valid(const char *s, size_t len)
{
  if (len == 0)
    return false;
  for (size_t i = 0; i < len; i++)
    if (s[i] < 0x21 || s[i] > 0x7E || s[i] == ',')
      return false;
  return true;
}
