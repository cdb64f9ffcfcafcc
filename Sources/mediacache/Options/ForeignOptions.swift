/// Options of aria2c, curl and wget that mediacache spells otherwise (or needs not), said
/// as such before parsing: ArgumentParser would report the option's value instead ("out.bin
/// is neither a URL nor a list file") or suggest an unrelated option of ours.
enum ForeignOptions {
    /// Spelling → what to use here. None of these is one of mediacache's own.
    private static let hints: [String: String] = {
        let remoteName = "mediacache names a file by the origin's name for it, else its URL: -d . puts it in this folder"
        let resumes = "mediacache resumes by itself: run the same command again, or `mediacache resume`"
        let tries = "use --retries N (failures in a row before a file is given up)"
        let timeout = "use --timeout SECONDS (how long a connection may bring nothing)"
        return [
            "-O": remoteName, "--remote-name": remoteName, "--remote-name-all": remoteName,
            "--output-document": "use -o FILE (also put the file at FILE)",
            "-P": "use -d DIR (also put each finished file in DIR)", "--directory-prefix": "use -d DIR",
            "-c": resumes, "--continue": resumes, "-C": resumes, "--continue-at": resumes,
            "-L": "redirects are always followed (up to 10); nothing to add", "--location": "redirects are always followed",
            "-A": "use --user-agent", "-U": "use --user-agent", "-e": "use --referer",
            "-b": "use --load-cookies FILE (a Netscape cookie file)", "--cookie": "use --load-cookies FILE",
            "-r": "mediacache fetches whole files (it asks for ranges itself)", "--range": "mediacache fetches whole files",
            "-s": "aria2's -s (split) is -x here (connections per file); curl's -s (silent) is -q",
            "--split": "use -x N (connections per file)", "--silent": "use -q (--quiet)",
            "--max-connection-per-server": "use -x N (connections per file)",
            "--max-concurrent-downloads": "use -j N (files at once)",
            "-Z": "mediacache downloads in parallel already: -j files at once, -x connections each",
            "--parallel": "mediacache downloads in parallel already: -j files at once, -x connections each",
            "--parallel-max": "use -j N (files at once)",
            "-t": tries, "--tries": tries, "--max-tries": tries, "--retry": tries,
            "-T": timeout, "-m": timeout, "--max-time": timeout, "--connect-timeout": timeout,
            "--checksum": "give checksum=sha-256=HEX (or sha-1=, md5=) under the URL in a list",
            "--all-proxy": "use --proxy URL", "-u": "put user:password@ in the URL, or use --netrc",
            "--user": "put user:password@ in the URL, or use --netrc",
        ]
    }()

    /// The first of `arguments` (before `--`) that is another tool's option, with what to
    /// use instead.
    static func problem(in arguments: [String]) -> String? {
        for argument in arguments {
            if argument == "--" { return nil }
            let name = argument.hasPrefix("--") ? String(argument.prefix { $0 != "=" }) : argument
            if let hint = hints[name] { return "\(name) is not a mediacache option; \(hint)" }
        }
        return nil
    }
}
