/* An NVTX tool for tests, loaded as a profiler is (NVTX_INJECTION64_PATH): it records
 * every core range and mark call, one line each, in the file NVTX_RECORDER_LOG names,
 * and answers pushes and pops with the nesting level as a tool does. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <nvtx3/nvToolsExt.h>

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE* log_file;
static __thread int depth;
static nvtxRangeId_t next_id = 1;

static void record(const char* what, const char* message, unsigned long long id) {
  pthread_mutex_lock(&log_lock);
  if (log_file != NULL) {
    fprintf(log_file, "%s %s %llu\n", what, message != NULL ? message : "-", id);
    fflush(log_file);
  }
  pthread_mutex_unlock(&log_lock);
}

static int range_push(const char* message) {
  record("push", message, 0);
  return depth++;
}

static int range_pop(void) {
  record("pop", NULL, 0);
  return depth > 0 ? --depth : -1;
}

static nvtxRangeId_t range_start(const char* message) {
  pthread_mutex_lock(&log_lock);
  const nvtxRangeId_t id = next_id++;
  pthread_mutex_unlock(&log_lock);
  record("start", message, id);
  return id;
}

static void range_end(nvtxRangeId_t id) { record("end", NULL, id); }

static void mark(const char* message) { record("mark", message, 0); }

int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_export_table) {
  const NvtxExportTableCallbacks* callbacks =
      (const NvtxExportTableCallbacks*)get_export_table(NVTX_ETID_CALLBACKS);
  NvtxFunctionTable table = NULL;
  unsigned int size = 0;
  if (callbacks == NULL ||
      !callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &table, &size) ||
      size <= NVTX_CBID_CORE_RangePop) {
    return 0;
  }
  const char* path = getenv("NVTX_RECORDER_LOG");
  log_file = path != NULL ? fopen(path, "a") : NULL;
  if (log_file == NULL) return 0;
  *table[NVTX_CBID_CORE_RangePushA] = (NvtxFunctionPointer)range_push;
  *table[NVTX_CBID_CORE_RangePop] = (NvtxFunctionPointer)range_pop;
  *table[NVTX_CBID_CORE_RangeStartA] = (NvtxFunctionPointer)range_start;
  *table[NVTX_CBID_CORE_RangeEnd] = (NvtxFunctionPointer)range_end;
  *table[NVTX_CBID_CORE_MarkA] = (NvtxFunctionPointer)mark;
  return 1;
}
