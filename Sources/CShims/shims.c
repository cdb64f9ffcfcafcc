#define _GNU_SOURCE
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <linux/fs.h>
#include "CShims.h"

CURLcode CShims_easy_setopt_long(CURL *easy, CURLoption option, long value) {
    return curl_easy_setopt(easy, option, value);
}
CURLcode CShims_easy_setopt_off_t(CURL *easy, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(easy, option, value);
}
CURLcode CShims_easy_setopt_string(CURL *easy, CURLoption option, const char *value) {
    return curl_easy_setopt(easy, option, value);
}
CURLcode CShims_easy_setopt_pointer(CURL *easy, CURLoption option, void *value) {
    return curl_easy_setopt(easy, option, value);
}
CURLcode CShims_easy_setopt_slist(CURL *easy, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(easy, option, value);
}
CURLcode CShims_easy_setopt_data_callback(CURL *easy, CURLoption option, CShims_data_callback value) {
    return curl_easy_setopt(easy, option, value);
}

CURLcode CShims_easy_setopt_seek_callback(CURL *easy, CURLoption option, CShims_seek_callback value) {
    return curl_easy_setopt(easy, option, value);
}

CURLcode CShims_easy_getinfo_long(CURL *easy, CURLINFO info, long *value) {
    return curl_easy_getinfo(easy, info, value);
}
CURLcode CShims_easy_getinfo_off_t(CURL *easy, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(easy, info, value);
}
CURLcode CShims_easy_getinfo_string(CURL *easy, CURLINFO info, const char **value) {
    return curl_easy_getinfo(easy, info, value);
}
CURLcode CShims_easy_getinfo_pointer(CURL *easy, CURLINFO info, void **value) {
    return curl_easy_getinfo(easy, info, value);
}

CURLMcode CShims_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

CURLcode CShims_multi_message_result(const CURLMsg *message) {
    return message->data.result;
}

size_t CShims_error_buffer_size(void) { return CURL_ERROR_SIZE; }

static int set_receive_buffer(void *clientp, curl_socket_t fd, curlsocktype purpose) {
    int bytes = (int)(intptr_t)clientp;
    if (purpose == CURLSOCKTYPE_IPCXN) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes);
    return CURL_SOCKOPT_OK;
}
CURLcode CShims_easy_set_receive_buffer(CURL *easy, long bytes) {
    // The size travels as the callback's pointer argument: nothing to keep alive.
    CURLcode result = curl_easy_setopt(easy, CURLOPT_SOCKOPTDATA, (void *)(intptr_t)bytes);
    if (result != CURLE_OK) return result;
    return curl_easy_setopt(easy, CURLOPT_SOCKOPTFUNCTION, set_receive_buffer);
}
int CShims_easy_resize_active_receive_buffer(CURL *easy, int bytes) {
    curl_socket_t fd = CURL_SOCKET_BAD;
    if (curl_easy_getinfo(easy, CURLINFO_ACTIVESOCKET, &fd) != CURLE_OK || fd == CURL_SOCKET_BAD) return -1;
    return setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes);
}

long CShims_easy_queued_bytes(CURL *easy) {
    curl_socket_t fd = CURL_SOCKET_BAD;
    if (curl_easy_getinfo(easy, CURLINFO_ACTIVESOCKET, &fd) != CURLE_OK || fd == CURL_SOCKET_BAD) return -1;
    int queued = 0;
    return ioctl(fd, FIONREAD, &queued) == 0 ? queued : -1;
}

int CShims_fallocate(int fd, int mode, off_t offset, off_t length) {
    return fallocate(fd, mode, offset, length);
}
ssize_t CShims_copy_file_range(int fd_in, off_t *off_in, int fd_out, off_t *off_out, size_t length, unsigned int flags) {
    return copy_file_range(fd_in, off_in, fd_out, off_out, length, flags);
}
int CShims_rename_noreplace(const char *from, const char *to) {
    return renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE);
}
int CShims_limit_malloc_arenas(int count) {
    return mallopt(M_ARENA_MAX, count);
}
int CShims_set_malloc_trim_threshold(int bytes) {
    return mallopt(M_TRIM_THRESHOLD, bytes);
}
int CShims_set_malloc_mmap_threshold(int bytes) {
    return mallopt(M_MMAP_THRESHOLD, bytes);
}
int CShims_syncfs(int fd) {
    return syncfs(fd);
}
int CShims_start_writeback(int fd) {
    return sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
}
static int set_byte_lock(int fd, off_t offset, short type) {
    struct flock lock = { .l_type = type, .l_whence = SEEK_SET, .l_start = offset, .l_len = 1 };
    return fcntl(fd, F_SETLK, &lock);
}
int CShims_lock_byte(int fd, off_t offset) {
    return set_byte_lock(fd, offset, F_WRLCK);
}
int CShims_unlock_byte(int fd, off_t offset) {
    return set_byte_lock(fd, offset, F_UNLCK);
}
int CShims_byte_lock_holder(int fd, off_t offset) {
    struct flock lock = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = offset, .l_len = 1 };
    if (fcntl(fd, F_GETLK, &lock) != 0) return -1;
    return lock.l_type == F_UNLCK ? 0 : lock.l_pid;
}
int CShims_open_unnamed(const char *directory) {
    return open(directory, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
}
int CShims_link_unnamed(int fd, const char *path) {
    char source[64];
    snprintf(source, sizeof source, "/proc/self/fd/%d", fd);
    return linkat(AT_FDCWD, source, AT_FDCWD, path, AT_SYMLINK_FOLLOW);
}

#include <archive_entry.h>

unsigned int CShims_archive_filetype_mask(void) { return AE_IFMT; }
unsigned int CShims_archive_filetype_regular(void) { return AE_IFREG; }
unsigned int CShims_archive_filetype_directory(void) { return AE_IFDIR; }
unsigned int CShims_archive_filetype_symlink(void) { return AE_IFLNK; }
unsigned int CShims_archive_filetype_character_device(void) { return AE_IFCHR; }
unsigned int CShims_archive_filetype_block_device(void) { return AE_IFBLK; }
unsigned int CShims_archive_filetype_fifo(void) { return AE_IFIFO; }
unsigned int CShims_archive_filetype_socket(void) { return AE_IFSOCK; }
