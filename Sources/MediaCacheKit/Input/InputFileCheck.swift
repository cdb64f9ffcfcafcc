#if canImport(Glibc)
import Glibc
#endif

/// A look at a file the user named (`--config`, `--load-cookies`, `--netrc-file`)
/// before anything opens it. Opening a FIFO with no writer blocks for ever (and a
/// thread blocked in `open` does not see SIGTERM), and a device never ends: only a
/// regular file is read.
public enum InputFileCheck {
    /// Why the file at `path` cannot be read, or nil.
    public static func problem(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            return errno == ENOENT || errno == ENOTDIR ? "no such file" : String(cString: strerror(errno))
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: return "it is a directory"
        case S_IFIFO: return "it is a FIFO (named pipe), not a regular file; give a file"
        default: return "it is not a regular file (a device or socket); give a file"
        }
        return access(path, R_OK) == 0 ? nil : "permission denied"
    }
}
