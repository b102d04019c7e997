// The parse alone, for the benchmark: reads the files named on stdin (one path per line), then
// parses each with tree-sitter-python and deletes the tree, timing only the parses. It is what
// tpulint's parse-only floor would be with no process pool, no node table and no report.
// Prints "<files> <bytes> <seconds>".
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <tree_sitter/api.h>

const TSLanguage *tree_sitter_python(void);

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(void) {
  size_t count = 0, capacity = 1024, bytes = 0;
  char **texts = malloc(capacity * sizeof *texts);
  size_t *lengths = malloc(capacity * sizeof *lengths);
  char path[4096];
  while (texts && lengths && fgets(path, sizeof path, stdin)) {
    path[strcspn(path, "\n")] = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
      fprintf(stderr, "cannot read %s\n", path);
      return 1;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (count == capacity) {
      capacity *= 2;
      texts = realloc(texts, capacity * sizeof *texts);
      lengths = realloc(lengths, capacity * sizeof *lengths);
      if (!texts || !lengths) break;
    }
    texts[count] = malloc((size_t)size + 1);
    lengths[count] = texts[count] ? fread(texts[count], 1, (size_t)size, f) : 0;
    fclose(f);
    bytes += lengths[count++];
  }
  if (!texts || !lengths) {
    fprintf(stderr, "out of memory\n");
    return 1;
  }
  TSParser *parser = ts_parser_new();
  ts_parser_set_language(parser, tree_sitter_python());
  double start = now();
  for (size_t i = 0; i < count; ++i) ts_tree_delete(ts_parser_parse_string(parser, NULL, texts[i], (uint32_t)lengths[i]));
  printf("%zu %zu %.6f\n", count, bytes, now() - start);
  ts_parser_delete(parser);
  return 0;
}
