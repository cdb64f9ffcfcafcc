import Foundation
import Testing

extension EndToEnd {
    /// `Scripts/package-deb` makes a Debian package that dpkg installs where Debian looks
    /// (binary, man page, completions, a systemd user unit for `serve`) and removes again.
    /// It is installed into a root of the test's own (`dpkg --root`), never the machine's.
    @Suite struct DebianPackage {
        static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().path
        let scratch = Scratch()

        /// Installs the package (built from the debug binary, uncompressed: quick) into
        /// an empty dpkg root; returns the root and the package's path.
        func installed() throws -> (root: String, deb: String) {
            let built = try ExternalTool.run(
                Self.repository + "/Scripts/package-deb",
                ["--binary", MediaCacheProcess.binary, "--output", scratch.path + "/out", "--uncompressed"])
            try #require(built.status == 0, "\(built.stderr)")
            let deb = built.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let root = scratch.path + "/root"
            for folder in ["var/lib/dpkg/info", "var/lib/dpkg/updates"] {
                try FileManager.default.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true)
            }
            #expect(FileManager.default.createFile(atPath: root + "/var/lib/dpkg/status", contents: Data()))
            // The libraries it depends on are the machine's, not in this empty root.
            let install = try ExternalTool.run(
                "/usr/bin/dpkg",
                ["--root=\(root)", "--log=\(root)/dpkg.log", "--force-depends", "--force-not-root", "-i", deb])
            try #require(install.status == 0, "\(install.stderr)")
            return (root, deb)
        }

        @Test func dpkgInstallsEverythingWhereDebianLooksAndRemovesIt() throws {
            let (root, deb) = try installed()
            let depends = try ExternalTool.run("/usr/bin/dpkg-deb", ["-f", deb, "Depends"]).stdout
            for package in ["libcurl4", "libarchive13", "libsqlite3-0", "libssl3", "libc6"] {
                #expect(depends.contains(package), "Depends: \(depends)")
            }
            let version = try ExternalTool.run(root + "/usr/bin/mediacache", ["--version"])
            #expect(version.status == 0 && version.stdout.hasPrefix("mediacache "))
            let man = try ExternalTool.run("/usr/bin/env", ["MANPATH=\(root)/usr/share/man", "man", "-w", "mediacache"])
            #expect(man.status == 0, "\(man.stderr)")
            #expect(man.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == root + "/usr/share/man/man1/mediacache.1.gz")
            let completions = [
                ("usr/share/bash-completion/completions/mediacache", "completions/mediacache.bash"),
                ("usr/share/zsh/vendor-completions/_mediacache", "completions/_mediacache"),
                ("usr/share/fish/vendor_completions.d/mediacache.fish", "completions/mediacache.fish"),
            ]
            for (installedPath, committed) in completions {
                #expect(
                    FileManager.default.contents(atPath: root + "/" + installedPath)
                        == FileManager.default.contents(atPath: Self.repository + "/" + committed), "\(installedPath)")
            }

            let removed = try ExternalTool.run(
                "/usr/bin/dpkg", ["--root=\(root)", "--log=\(root)/dpkg.log", "--force-not-root", "-r", "mediacache"])
            #expect(removed.status == 0, "\(removed.stderr)")
            for path in ["usr/bin/mediacache", "usr/share/man/man1/mediacache.1.gz", "usr/lib/systemd/user/mediacache-serve.service"]
                + completions.map(\.0)
            {
                #expect(!FileManager.default.fileExists(atPath: root + "/" + path), "\(path) is left after dpkg -r")
            }
        }

        /// The user unit for `serve` passes `systemd-analyze verify` without a message
        /// (its ExecStart pointed at the package's binary in the test's root).
        @Test func theServeUnitPassesSystemdAnalyzeVerify() throws {
            let (root, _) = try installed()
            let unit = try String(
                contentsOfFile: root + "/usr/lib/systemd/user/mediacache-serve.service", encoding: .utf8)
            #expect(unit.contains("ExecStart=/usr/bin/mediacache serve --listen 127.0.0.1:8737"))
            let check = scratch.path + "/mediacache-serve.service"
            try unit.replacingOccurrences(of: "/usr/bin/mediacache", with: root + "/usr/bin/mediacache")
                .write(toFile: check, atomically: true, encoding: .utf8)
            let verify = try ExternalTool.run("/usr/bin/systemd-analyze", ["verify", "--man=no", check])
            #expect(verify.status == 0, "\(verify.stderr)")
            #expect(verify.stderr.isEmpty && verify.stdout.isEmpty, "\(verify.stderr)\(verify.stdout)")
        }
    }
}
