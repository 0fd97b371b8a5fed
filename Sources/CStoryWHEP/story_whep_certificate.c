// The DTLS certificate of a WHEP session (story_whep_certificate.h says why ECDSA P-256).
//
// libcrypto is opened at run time like GStreamer (story_whep_load.c): no OpenSSL header is included
// and nothing is linked. The soname is OpenSSL 3's, the one gst-plugins-bad 1.22's DTLS
// plugin links on Debian 12 (libssl3), so the process holds one libcrypto; only the PEM text
// crosses to GStreamer. Every OpenSSL type is opaque here, and the few constants used are
// OpenSSL 3.0's public ones, named below.
#include "story_whep_certificate.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct EVP_PKEY EVP_PKEY;
typedef struct EVP_PKEY_CTX EVP_PKEY_CTX;
typedef struct EVP_MD EVP_MD;
typedef struct X509 X509;
typedef struct X509_NAME X509_NAME;
typedef struct ASN1_INTEGER ASN1_INTEGER;
typedef struct ASN1_TIME ASN1_TIME;
typedef struct BIO BIO;
typedef struct BIO_METHOD BIO_METHOD;

enum { STORY_MBSTRING_ASC = 0x1001 };  // MBSTRING_ASC (asn1.h): MBSTRING_FLAG | 1
enum { STORY_BIO_CTRL_INFO = 3 };      // BIO_CTRL_INFO (bio.h): BIO_get_mem_data's control
enum { STORY_X509_VERSION_3 = 2 };     // X509_VERSION_3 (x509.h)

#define STORY_CRYPTO_FUNCTIONS(X) \
    X(EVP_PKEY_CTX *, EVP_PKEY_CTX_new_from_name, (void *, const char *, const char *)) \
    X(int, EVP_PKEY_keygen_init, (EVP_PKEY_CTX *)) \
    X(int, EVP_PKEY_CTX_set_group_name, (EVP_PKEY_CTX *, const char *)) \
    X(int, EVP_PKEY_generate, (EVP_PKEY_CTX *, EVP_PKEY **)) \
    X(void, EVP_PKEY_CTX_free, (EVP_PKEY_CTX *)) \
    X(void, EVP_PKEY_free, (EVP_PKEY *)) \
    X(const EVP_MD *, EVP_sha256, (void)) \
    X(int, RAND_bytes, (unsigned char *, int)) \
    X(X509 *, X509_new, (void)) \
    X(void, X509_free, (X509 *)) \
    X(int, X509_set_version, (X509 *, long)) \
    X(ASN1_INTEGER *, X509_get_serialNumber, (X509 *)) \
    X(int, ASN1_INTEGER_set_uint64, (ASN1_INTEGER *, uint64_t)) \
    X(X509_NAME *, X509_NAME_new, (void)) \
    X(void, X509_NAME_free, (X509_NAME *)) \
    X(int, X509_NAME_add_entry_by_txt, (X509_NAME *, const char *, int, const unsigned char *, int, int, int)) \
    X(int, X509_set_subject_name, (X509 *, const X509_NAME *)) \
    X(int, X509_set_issuer_name, (X509 *, const X509_NAME *)) \
    X(ASN1_TIME *, X509_getm_notBefore, (const X509 *)) \
    X(ASN1_TIME *, X509_getm_notAfter, (const X509 *)) \
    X(ASN1_TIME *, X509_gmtime_adj, (ASN1_TIME *, long)) \
    X(int, X509_set_pubkey, (X509 *, EVP_PKEY *)) \
    X(int, X509_sign, (X509 *, EVP_PKEY *, const EVP_MD *)) \
    X(int, X509_digest, (const X509 *, const EVP_MD *, unsigned char *, unsigned int *)) \
    X(const BIO_METHOD *, BIO_s_mem, (void)) \
    X(BIO *, BIO_new, (const BIO_METHOD *)) \
    X(int, BIO_free, (BIO *)) \
    X(long, BIO_ctrl, (BIO *, int, long, void *)) \
    X(int, PEM_write_bio_X509, (BIO *, X509 *)) \
    X(int, PEM_write_bio_PrivateKey, (BIO *, const EVP_PKEY *, const void *, const unsigned char *, int, void *, void *))

#define STORY_CRYPTO_MEMBER(result, name, parameters) result(*name) parameters;
static struct {
    STORY_CRYPTO_FUNCTIONS(STORY_CRYPTO_MEMBER)
} C;
#undef STORY_CRYPTO_MEMBER

static const char story_crypto_file[] = "libcrypto.so.3";

int story_whep_certificate_load(char *error, size_t capacity) {
    void *handle = dlopen(story_crypto_file, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *why = dlerror();
        snprintf(error, capacity, "cannot open %s (%s): install libssl3 (OpenSSL 3, as gstreamer1.0-plugins-bad's DTLS needs)",
                 story_crypto_file, why != NULL ? why : "not found");
        return -1;
    }
#define STORY_CRYPTO_RESOLVE(result, name, parameters) \
    if ((*(void **)&C.name = dlsym(handle, #name)) == NULL) { \
        snprintf(error, capacity, "%s has no %s: OpenSSL 3.0 or later is needed", story_crypto_file, #name); \
        return -1; \
    }
    STORY_CRYPTO_FUNCTIONS(STORY_CRYPTO_RESOLVE)
#undef STORY_CRYPTO_RESOLVE
    return 0;
}

/// A new P-256 key; NULL when OpenSSL refuses.
static EVP_PKEY *story_make_key(void) {
    EVP_PKEY *key = NULL;
    EVP_PKEY_CTX *context = C.EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    if (context != NULL && C.EVP_PKEY_keygen_init(context) == 1 && C.EVP_PKEY_CTX_set_group_name(context, "P-256") == 1)
        C.EVP_PKEY_generate(context, &key);
    if (context != NULL)
        C.EVP_PKEY_CTX_free(context);
    return key;
}

/// The self-signed certificate of `key`: a random serial and common name, as browsers do
/// (WebRTC identifies a peer by the fingerprint alone).
static X509 *story_make_x509(EVP_PKEY *key) {
    unsigned char random[8];
    X509 *x509 = C.X509_new();
    X509_NAME *name = C.X509_NAME_new();
    int made = x509 != NULL && name != NULL && C.RAND_bytes(random, sizeof random) == 1;
    if (made) {
        uint64_t serial = 0;
        char common_name[17];
        for (size_t i = 0; i < sizeof random; i++) {
            serial = serial << 8 | random[i];
            snprintf(common_name + 2 * i, 3, "%02x", random[i]);
        }
        made = C.X509_set_version(x509, STORY_X509_VERSION_3) == 1 &&
               C.ASN1_INTEGER_set_uint64(C.X509_get_serialNumber(x509), serial >> 1) == 1 && // positive
               C.X509_NAME_add_entry_by_txt(name, "CN", STORY_MBSTRING_ASC, (const unsigned char *)common_name, -1, -1, 0) == 1 &&
               C.X509_set_subject_name(x509, name) == 1 && C.X509_set_issuer_name(x509, name) == 1 &&
               C.X509_gmtime_adj(C.X509_getm_notBefore(x509), -86400L) != NULL &&
               C.X509_gmtime_adj(C.X509_getm_notAfter(x509), 30L * 86400L) != NULL &&
               C.X509_set_pubkey(x509, key) == 1 && C.X509_sign(x509, key, C.EVP_sha256()) > 0;
    }
    if (name != NULL)
        C.X509_NAME_free(name);
    if (!made && x509 != NULL) {
        C.X509_free(x509);
        x509 = NULL;
    }
    return x509;
}

/// The certificate then the key, PEM, as one malloc'd string; NULL when OpenSSL refuses.
static char *story_pem(X509 *x509, EVP_PKEY *key) {
    BIO *bio = C.BIO_new(C.BIO_s_mem());
    if (bio == NULL)
        return NULL;
    char *pem = NULL;
    if (C.PEM_write_bio_X509(bio, x509) == 1 && C.PEM_write_bio_PrivateKey(bio, key, NULL, NULL, 0, NULL, NULL) == 1) {
        char *data = NULL;
        long length = C.BIO_ctrl(bio, STORY_BIO_CTRL_INFO, 0, &data);
        if (length > 0 && data != NULL && (pem = malloc((size_t)length + 1)) != NULL) {
            memcpy(pem, data, (size_t)length);
            pem[length] = '\0';
        }
    }
    C.BIO_free(bio);
    return pem;
}

int story_whep_certificate_make(story_whep_certificate *certificate, char *error, size_t capacity) {
    memset(certificate, 0, sizeof *certificate);
    EVP_PKEY *key = story_make_key();
    X509 *x509 = key != NULL ? story_make_x509(key) : NULL;
    unsigned char digest[32];
    unsigned int digest_length = 0;
    if (x509 != NULL && C.X509_digest(x509, C.EVP_sha256(), digest, &digest_length) == 1 && digest_length == sizeof digest) {
        certificate->pem = story_pem(x509, key);
        for (size_t i = 0; i < sizeof digest; i++)
            snprintf(certificate->fingerprint + 3 * i, 4, i + 1 < sizeof digest ? "%02X:" : "%02X", digest[i]);
    }
    if (x509 != NULL)
        C.X509_free(x509);
    if (key != NULL)
        C.EVP_PKEY_free(key);
    if (certificate->pem == NULL) {
        snprintf(error, capacity, "OpenSSL could not make the DTLS certificate (ECDSA P-256)%s",
                 key == NULL ? ": no P-256 key" : x509 == NULL ? ": the certificate was not signed" : "");
        return -1;
    }
    return 0;
}

void story_whep_certificate_free(story_whep_certificate *certificate) {
    if (certificate->pem != NULL) {
        // The private key: not left in freed memory.
        memset(certificate->pem, 0, strlen(certificate->pem));
        free(certificate->pem);
        certificate->pem = NULL;
    }
}

char *story_whep_sdp_with_fingerprint(const char *sdp, const char *fingerprint) {
    static const char prefix[] = "a=fingerprint:";
    static const char hash[] = "sha-256 ";
    // Each line at most grows to the prefix, the hash name and the fingerprint.
    size_t lines = 1;
    for (const char *p = sdp; *p != '\0'; p++)
        lines += *p == '\n';
    size_t capacity = strlen(sdp) + lines * (sizeof hash + strlen(fingerprint)) + 1;
    char *result = malloc(capacity);
    if (result == NULL)
        return NULL;
    size_t used = 0;
    const char *line = sdp;
    while (*line != '\0') {
        const char *end = strpbrk(line, "\r\n");
        size_t length = end != NULL ? (size_t)(end - line) : strlen(line);
        if (length >= sizeof prefix - 1 && strncmp(line, prefix, sizeof prefix - 1) == 0) {
            used += (size_t)snprintf(result + used, capacity - used, "%s%s%s", prefix, hash, fingerprint);
        } else {
            memcpy(result + used, line, length);
            used += length;
        }
        line += length;
        while (*line == '\r' || *line == '\n')
            result[used++] = *line++;
    }
    result[used] = '\0';
    return result;
}
