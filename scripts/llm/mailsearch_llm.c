// mailsearch_llm.c: the few entry points MailSearch needs of llama.cpp, with plain C types only,
// so that the Swift side can dlopen this library at run time without llama.h's structs.
// Built by scripts/install-llm.sh against the llama.cpp that llama-cpp-python's sdist vendors.
//
//   void *ms_llm_load(const char *model_path, int n_ctx, int n_threads, char *err, size_t err_cap);
//   int   ms_llm_generate(void *handle, const char *system, const char *user, int max_tokens,
//                         char *out, size_t out_cap, char *err, size_t err_cap);
//         the reply's length in bytes (greedy decoding with a repeat penalty), or -1 with err set
//   int   ms_llm_context_size(void *handle);
//   int   ms_llm_count_tokens(void *handle, const char *text);
//   void  ms_llm_free(void *handle);
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llama.h"

struct ms_llm {
    struct llama_model *model;
    struct llama_context *ctx;
    const struct llama_vocab *vocab;
    int n_threads;
};

static void quiet_log(enum ggml_log_level level, const char *text, void *user) {
    (void)level; (void)text; (void)user;
}

static void set_error(char *err, size_t cap, const char *message) {
    if (err && cap > 0) snprintf(err, cap, "%s", message);
}

void *ms_llm_load(const char *model_path, int n_ctx, int n_threads, char *err, size_t err_cap) {
    llama_log_set(quiet_log, NULL);
    llama_backend_init();
    struct llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers = 0;
    struct llama_model *model = llama_model_load_from_file(model_path, mp);
    if (!model) {
        set_error(err, err_cap, "llama.cpp could not load the model file (not a GGUF model it supports?)");
        return NULL;
    }
    struct llama_context_params cp = llama_context_default_params();
    cp.n_ctx = (uint32_t)n_ctx;
    cp.n_batch = (uint32_t)n_ctx;
    cp.n_threads = n_threads;
    cp.n_threads_batch = n_threads;
    cp.no_perf = true;
    struct llama_context *ctx = llama_init_from_model(model, cp);
    if (!ctx) {
        llama_model_free(model);
        set_error(err, err_cap, "llama.cpp could not make a context for the model");
        return NULL;
    }
    struct ms_llm *h = calloc(1, sizeof *h);
    h->model = model;
    h->ctx = ctx;
    h->vocab = llama_model_get_vocab(model);
    h->n_threads = n_threads;
    return h;
}

int ms_llm_context_size(void *handle) {
    struct ms_llm *h = handle;
    return (int)llama_n_ctx(h->ctx);
}

int ms_llm_count_tokens(void *handle, const char *text) {
    struct ms_llm *h = handle;
    int32_t n = llama_tokenize(h->vocab, text, (int32_t)strlen(text), NULL, 0, true, true);
    return n < 0 ? -n : n;
}

int ms_llm_generate(void *handle, const char *system, const char *user, int max_tokens,
                    char *out, size_t out_cap, char *err, size_t err_cap) {
    struct ms_llm *h = handle;
    struct llama_chat_message chat[2] = { { "system", system }, { "user", user } };
    const char *tmpl = llama_model_chat_template(h->model, NULL);
    size_t cap = 2 * (strlen(system) + strlen(user)) + 1024;
    char *prompt = malloc(cap);
    int32_t n = llama_chat_apply_template(tmpl, chat, 2, true, prompt, (int32_t)cap);
    if (n > (int32_t)cap) {
        cap = (size_t)n + 1;
        prompt = realloc(prompt, cap);
        n = llama_chat_apply_template(tmpl, chat, 2, true, prompt, (int32_t)cap);
    }
    if (n < 0) {
        free(prompt);
        set_error(err, err_cap, "the model's chat template is not one llama.cpp knows");
        return -1;
    }
    prompt[n] = 0;
    int32_t n_prompt = -llama_tokenize(h->vocab, prompt, n, NULL, 0, true, true);
    llama_token *tokens = malloc(sizeof(llama_token) * (size_t)(n_prompt > 0 ? n_prompt : 1));
    if (llama_tokenize(h->vocab, prompt, n, tokens, n_prompt, true, true) < 0) {
        free(prompt); free(tokens);
        set_error(err, err_cap, "the prompt could not be tokenized");
        return -1;
    }
    free(prompt);
    int n_ctx = (int)llama_n_ctx(h->ctx);
    if (n_prompt + max_tokens > n_ctx) {
        free(tokens);
        char message[160];
        snprintf(message, sizeof message, "the prompt is %d tokens; with %d to write it does not fit the context of %d",
                 n_prompt, max_tokens, n_ctx);
        set_error(err, err_cap, message);
        return -1;
    }
    llama_memory_clear(llama_get_memory(h->ctx), true);

    struct llama_sampler_chain_params sp = llama_sampler_chain_default_params();
    sp.no_perf = true;
    struct llama_sampler *chain = llama_sampler_chain_init(sp);
    llama_sampler_chain_add(chain, llama_sampler_init_penalties(llama_vocab_n_tokens(h->vocab), 64, 1.15f, 0.0f, 0.0f));
    llama_sampler_chain_add(chain, llama_sampler_init_greedy());

    struct llama_batch batch = llama_batch_get_one(tokens, n_prompt);
    size_t used = 0;
    int status = 0;
    llama_token next;
    for (int i = 0; i < max_tokens; i++) {
        if (llama_decode(h->ctx, batch) != 0) {
            set_error(err, err_cap, "llama_decode failed");
            status = -1;
            break;
        }
        next = llama_sampler_sample(chain, h->ctx, -1);
        if (llama_vocab_is_eog(h->vocab, next)) break;
        char piece[256];
        int len = llama_token_to_piece(h->vocab, next, piece, sizeof piece, 0, false);
        if (len < 0) len = 0;
        if (used + (size_t)len + 1 >= out_cap) break;
        memcpy(out + used, piece, (size_t)len);
        used += (size_t)len;
        batch = llama_batch_get_one(&next, 1);
    }
    out[used] = 0;
    llama_sampler_free(chain);
    free(tokens);
    return status < 0 ? -1 : (int)used;
}

void ms_llm_free(void *handle) {
    struct ms_llm *h = handle;
    if (!h) return;
    llama_free(h->ctx);
    llama_model_free(h->model);
    free(h);
}
