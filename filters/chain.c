/* argus-chain: runs built-in stages one after the other in one process,
 * each record handed from stage to stage with no encoding in between; its
 * output is the pipe of the separate programs', byte for byte. With
 * decode first, it decodes the trace in one thread while the stages run
 * in another (docs/stages/chain.md). */
#include "argus/decode/decode.h"
#include "argus/stages/builtin.h"
#include "argus/stream/channel.h"
#include "argus/stream/cli.h"

#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "Usage: argus-chain [-v] STAGE... [FILE|-]\n"
    "       argus-chain [-v] [-f FORMAT] decode STAGE... [TRACE|-]\n"
    "Run built-in stages in one process: the output of 'argus-A | argus-B ...'.\n"
    "\n"
    "STAGE is a built-in stage run with its default options: cull-interrupts,\n"
    "segment, link-ipc, link-dispatch, link-flags, link-wakeups. The records\n"
    "pass from one stage to the next in memory; each stage appends its own\n"
    "name to the header's \"stages\", as its program would, so the output is\n"
    "byte for byte that of the pipe of the programs. A stage with options,\n"
    "or one of your own, runs as its program in a pipe beside the chain.\n"
    "The last argument, when it names no stage, is the input (a file named\n"
    "like a stage: ./NAME).\n"
    "\n"
    "decode, first, decodes TRACE in a thread of its own, beside the stages\n"
    "(the output of 'argus-decode [--format FORMAT] TRACE | argus-chain\n"
    "STAGE...'); its errors are argus-decode's, and what it decoded before\n"
    "one goes through the stages.\n"
    "\n"
    "  -f, --format FORMAT  decode's input format (argus-decode --help)\n"
    "  -v, --verbose  print each stage's counts to stderr at the end, as\n"
    "                 argus-STAGE -v would\n"
    "  -h, --help     show this help\n"
    "      --version  show the version\n";

/* decode in this thread, the stages in another, a channel between them */
typedef struct decode_run {
    const argus_stage_def **defs;
    int n;
    argus_channel *channel;
    argus_writer *decoded;  /* decode's output, into the channel */
    bool verbose;           /* taken back when decoding fails */
    bool stages_started, stages_running;
    pthread_t stages;
    int status;
} decode_run;

static void *run_stages(void *arg)
{
    decode_run *run = arg;
    argus_input in;
    /* named as the reader of a pipe from argus-decode would name it */
    argus_input_channel(&in, run->channel, "<stdin>", ARGUS_MAX_RECORD);
    run->status = argus_stage_chain_reader(run->defs, run->n, argus_reader_from_input(&in),
                                           &run->verbose);
    return NULL;
}

/* The stages' thread, started when decode hands over its first block
 * (argus_channel_on_first_put), not before: a decoder's trial child
 * (fork) made while another thread of this process allocated could find
 * the allocator's lock held for ever (argus diagnose of a perf.data hung
 * on the sanitizer build: AddressSanitizer's allocator, clang 14). */
static void start_stages(void *arg)
{
    decode_run *run = arg;
    if (run->stages_started)
        return;
    run->stages_started = true;
    if (pthread_create(&run->stages, NULL, run_stages, run) != 0)
        argus_die(ARGUS_EX_SOFTWARE, "cannot start a thread");
    run->stages_running = true;
}

/* The stages finish what was decoded, as they would in a pipe. */
static void end_stages(decode_run *run)
{
    argus_writer_close(run->decoded);
    run->decoded = NULL;
    start_stages(run); /* nothing handed over: they read an empty input */
    argus_channel_close(run->channel);
    if (run->stages_running)
        pthread_join(run->stages, NULL);
    run->stages_running = false;
}

/* Decoding failed (argus_die in this thread, before its message): the
 * stages get the whole records decoded so far and finish, their counts
 * untold, as argus graph tells only the first failing program's
 * messages. With nothing decoded there is nothing to finish: the stages'
 * reader would only say its input is empty. */
static void decode_failed(void *arg)
{
    decode_run *run = arg;
    run->verbose = false;
    argus_writer_flush(run->decoded);
    if (argus_writer_bytes(run->decoded) > 0)
        end_stages(run);
}

static int decode_and_chain(const argus_stage_def **defs, int n, const char *format,
                            const char *input, bool verbose)
{
    /* decode's line in "stages": what argus-decode's own would be */
    char *words[3];
    int k = 0;
    if (format) {
        words[k++] = "--format";
        words[k++] = (char *)format;
    }
    if (input)
        words[k++] = (char *)input;
    char *command = argus_shell_words("decode", k, words);

    decode_run run = {.defs = defs, .n = n, .verbose = verbose};
    run.channel = argus_channel_new(4);
    run.decoded = argus_writer_channel(run.channel);
    /* decode's messages: as the command the user typed, else argus-decode */
    argus_cli_thread_prog(argus_cli_user_command() ? argus_cli_user_command() : "argus-decode");
    argus_cli_on_die(decode_failed, &run);
    argus_channel_on_first_put(run.channel, start_stages, &run);

    argus_kd_codes *codes = argus_kd_codes_default();
    argus_decode_options o = {.verbose = verbose, .command = command};
    o.kd.codes = codes;
    if (argus_decode_is_dir(input)) { /* a CTF trace */
        argus_decode_dir(input, format, &o, run.decoded);
    } else {
        argus_input in;
        argus_input_open(&in, input, ARGUS_DECODE_MAX_LINE);
        argus_decode_check(&in, format);
        if (!format)
            format = argus_decode_detect(&in);
        argus_decode_run(&in, format, &o, run.decoded);
        argus_input_close(&in);
    }
    argus_cli_on_die(NULL, NULL);
    argus_cli_thread_prog(NULL);
    end_stages(&run);
    argus_kd_codes_free(codes);
    argus_channel_free(run.channel);
    free(command);
    return run.status;
}

int main(int argc, char **argv)
{
    argus_cli_init(argc, argv);
    static const struct option opts[] = {
        {"format", required_argument, 0, 'f'},
        ARGUS_OPTION_VERBOSE,
        ARGUS_OPTION_HELP,
        ARGUS_OPTION_VERSION,
        {0, 0, 0, 0},
    };
    argus_options common = ARGUS_OPTIONS_DEFAULT;
    const char *format = NULL;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "f:vh", opts, NULL)) != -1) {
        if (c == 'f')
            format = optarg;
        else
            argus_common_option(c, usage, &common, argv);
    }
    bool decode = optind < argc && strcmp(argv[optind], "decode") == 0;
    if (decode)
        optind++;
    if (format && !decode)
        argus_usage_error("--format is decode's: give decode as the first stage");
    int n = argc - optind;
    const char *input = NULL;
    if (n > 0 && !argus_builtin_stage(argv[argc - 1])) {
        input = argv[argc - 1];
        n--;
    }
    argus_decode_need_format(format, input);
    if (n == 0)
        argus_usage_error(decode ? "no stage given after decode" : "no stage given");
    const argus_stage_def **defs = argus_xcalloc((size_t)n, sizeof *defs, "the stages");
    for (int i = 0; i < n; i++) {
        defs[i] = argus_builtin_stage(argv[optind + i]);
        if (!defs[i] && strcmp(argv[optind + i], "decode") == 0)
            argus_usage_error("decode is the first stage or none");
        if (!defs[i])
            argus_usage_error("no built-in stage '%s' (one of cull-interrupts, "
                              "segment, link-ipc, link-dispatch, link-flags, "
                              "link-wakeups)",
                              argv[optind + i]);
    }
    int status = decode ? decode_and_chain(defs, n, format, input, common.verbose)
                        : argus_stage_chain(defs, n, input, common.verbose);
    free(defs);
    return status;
}
