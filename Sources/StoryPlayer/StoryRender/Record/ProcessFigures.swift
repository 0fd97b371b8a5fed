import Foundation

/// What the recording process costs so far, read from `/proc/self`: for the running summary,
/// where an operator (or `bench/record.sh`) sees that memory, threads and files stay flat.
struct ProcessFigures {
    var cpuSeconds = 0.0
    var rssMegabytes = 0.0
    var threads = 0
    var openFiles = 0

    /// The figures now; zeros where `/proc` does not say.
    static func now() -> ProcessFigures {
        var figures = ProcessFigures()
        if let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
           let close = stat.lastIndex(of: ")") {
            // Fields after the command's name: state is the 3rd field, utime the 14th, stime the 15th.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) {
                figures.cpuSeconds = (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
            }
        }
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) {
            for line in status.split(separator: "\n") {
                let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
                if line.hasPrefix("VmRSS:"), parts.count > 1, let kilobytes = Double(parts[1]) { figures.rssMegabytes = kilobytes / 1024 }
                if line.hasPrefix("Threads:"), parts.count > 1, let count = Int(parts[1]) { figures.threads = count }
            }
        }
        figures.openFiles = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.count ?? 1) - 1
        return figures
    }
}
