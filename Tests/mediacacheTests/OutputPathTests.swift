import ArgumentParser
import Testing

@testable import mediacache

/// `prefetch -o FILE`, as curl's and aria2's -o: the one URL's file also appears at FILE.
@Suite("-o FILE")
struct OutputPathTests {
    let oneURL = try! ListInputs(arguments: ["https://a.example/v/x.mp4"], inputFiles: [])

    func message(_ path: String, inputs: ListInputs? = nil, directory: String? = nil) -> String? {
        do {
            _ = try OutputPath(path, inputs: inputs ?? oneURL, directory: directory, workingDirectory: "/home/u")
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func aRelativeNameIsInTheWorkingFolderOrUnderDashD() throws {
        let here = try OutputPath("movie.mp4", inputs: oneURL, directory: nil, workingDirectory: "/home/u")
        #expect(here.folder == "/home/u" && here.name == "movie.mp4")
        let sub = try OutputPath("Films/2024/movie.mp4", inputs: oneURL, directory: "out", workingDirectory: "/home/u")
        #expect(sub.folder == "/home/u/out/Films/2024" && sub.name == "movie.mp4")
        let absolute = try OutputPath("/srv/m/movie.mp4", inputs: oneURL, directory: "/elsewhere", workingDirectory: "/home/u")
        #expect(absolute.folder == "/srv/m" && absolute.name == "movie.mp4")
        let root = try OutputPath("/x.mp4", inputs: oneURL, directory: nil, workingDirectory: "/")
        #expect(root.folder == "/" && root.name == "x.mp4")
    }

    @Test func itNamesOneURLsFileOnly() throws {
        let two = try ListInputs(arguments: ["https://a.example/1.mp4", "https://a.example/2.mp4"], inputFiles: [])
        #expect(message("x.mp4", inputs: two)?.contains("-o names one file: give one URL with it") == true)
        let list = try ListInputs(arguments: [], inputFiles: ["-"])
        #expect(message("x.mp4", inputs: list)?.contains("out=NAME names each file") == true)
    }

    @Test func aFolderStandardOutputOrNothingIsRefusedWithWhatToDo() {
        #expect(message("")?.contains("-o needs a file name") == true)
        #expect(message("-")?.contains("does not write to standard output; once the file is cached, cat") == true)
        for folder in ["out/", ".", "..", "a/..", "/tmp"] {
            #expect(message(folder)?.contains("-o \(folder) names a folder: end it with the file's name, or use -d") == true, "\(folder)")
        }
        #expect(message("a\nb.mp4")?.contains("control character") == true)
    }
}
