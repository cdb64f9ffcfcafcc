#ifndef MEDIACACHE_CSHIMS_H
#define MEDIACACHE_CSHIMS_H

// Shims for C APIs Swift cannot import directly.
// - curl_easy_setopt / curl_easy_getinfo / curl_multi_setopt are variadic: one typed
//   wrapper per argument type.
// - fallocate, copy_file_range and renameat2 are declared only under _GNU_SOURCE,
//   which must be defined before the first libc header: shims.c does that.
// - CURL_* macros that Swift does not import become functions or constants here.

#include <curl/curl.h>
#include <stdint.h>
#include <sys/types.h>

/// CURLOPT_WRITEFUNCTION, CURLOPT_HEADERFUNCTION and CURLOPT_READFUNCTION all take this shape.
typedef size_t (*CShims_data_callback)(char *data, size_t size, size_t nmemb, void *userdata);
/// CURLOPT_SEEKFUNCTION: rewinds a request body libcurl must send again.
typedef int (*CShims_seek_callback)(void *userdata, curl_off_t offset, int origin);

CURLcode CShims_easy_setopt_long(CURL *easy, CURLoption option, long value);
CURLcode CShims_easy_setopt_off_t(CURL *easy, CURLoption option, curl_off_t value);
CURLcode CShims_easy_setopt_string(CURL *easy, CURLoption option, const char *value);
CURLcode CShims_easy_setopt_pointer(CURL *easy, CURLoption option, void *value);
CURLcode CShims_easy_setopt_slist(CURL *easy, CURLoption option, struct curl_slist *value);
CURLcode CShims_easy_setopt_data_callback(CURL *easy, CURLoption option, CShims_data_callback value);
CURLcode CShims_easy_setopt_seek_callback(CURL *easy, CURLoption option, CShims_seek_callback value);

CURLcode CShims_easy_getinfo_long(CURL *easy, CURLINFO info, long *value);
CURLcode CShims_easy_getinfo_off_t(CURL *easy, CURLINFO info, curl_off_t *value);
CURLcode CShims_easy_getinfo_string(CURL *easy, CURLINFO info, const char **value);
CURLcode CShims_easy_getinfo_pointer(CURL *easy, CURLINFO info, void **value);

CURLMcode CShims_multi_setopt_long(CURLM *multi, CURLMoption option, long value);

/// The CURLMsg union member Swift cannot reach by name.
CURLcode CShims_multi_message_result(const CURLMsg *message);

/// Size of one CURL_ERROR_SIZE error buffer.
size_t CShims_error_buffer_size(void);

// A rate-limited transfer keeps the kernel from buffering far ahead of the limit
// (aria2 #1755): its sockets get a small SO_RCVBUF, which also turns off autotuning.
/// Installs a CURLOPT_SOCKOPTFUNCTION that gives every new socket of `easy` an
/// SO_RCVBUF of `bytes` before it connects (so the window it offers starts small).
CURLcode CShims_easy_set_receive_buffer(CURL *easy, long bytes);
/// Sets SO_RCVBUF of the connection `easy` uses now (a reused one keeps the buffer it
/// was made with). 0, or -1 when there is no socket or setsockopt fails.
int CShims_easy_resize_active_receive_buffer(CURL *easy, int bytes);
// Bytes waiting in the receive queue of the connection in use (FIONREAD); -1 if unknown.
long CShims_easy_queued_bytes(CURL *easy);

int CShims_fallocate(int fd, int mode, off_t offset, off_t length);
ssize_t CShims_copy_file_range(int fd_in, off_t *off_in, int fd_out, off_t *off_out, size_t length, unsigned int flags);
/// renameat2 with RENAME_NOREPLACE: fails with EEXIST instead of replacing the target.
int CShims_rename_noreplace(const char *from, const char *to);
/// mallopt(M_ARENA_MAX, count): at most count malloc arenas for the whole process.
int CShims_limit_malloc_arenas(int count);
/// mallopt(M_TRIM_THRESHOLD): also fixes the mmap threshold (no dynamic growth).
int CShims_set_malloc_trim_threshold(int bytes);
/// mallopt(M_MMAP_THRESHOLD, bytes): allocations at least this large get mappings of their own.
int CShims_set_malloc_mmap_threshold(int bytes);
/// syncfs: one flush for every dirty file of the file system holding fd.
int CShims_syncfs(int fd);
/// sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE): starts writeback of fd's dirty
/// pages without waiting for it.
int CShims_start_writeback(int fd);
/// fcntl(F_SETLK): a POSIX write lock on the one byte at offset. 0, or -1 with errno
/// (EAGAIN or EACCES while another process holds it).
int CShims_lock_byte(int fd, off_t offset);
/// fcntl(F_SETLK, F_UNLCK) on the byte at offset.
int CShims_unlock_byte(int fd, off_t offset);
/// fcntl(F_GETLK): the pid of a process holding a lock on the byte at offset that would
/// block ours; 0 if none; -1 with errno on error.
int CShims_byte_lock_holder(int fd, off_t offset);
/// open(directory, O_TMPFILE | O_RDWR, 0600): a file with no name yet, in directory's file system.
int CShims_open_unnamed(const char *directory);
/// Gives the unnamed file fd the name path (linkat through /proc/self/fd); fails with EEXIST.
int CShims_link_unnamed(int fd, const char *path);

// libarchive's AE_IF* file-type macros carry a cast, so Swift does not import them.
// archive_entry.h is included only by shims.c, keeping this header free of libarchive.
unsigned int CShims_archive_filetype_mask(void);
unsigned int CShims_archive_filetype_regular(void);
unsigned int CShims_archive_filetype_directory(void);
unsigned int CShims_archive_filetype_symlink(void);
unsigned int CShims_archive_filetype_character_device(void);
unsigned int CShims_archive_filetype_block_device(void);
unsigned int CShims_archive_filetype_fifo(void);
unsigned int CShims_archive_filetype_socket(void);

#endif
