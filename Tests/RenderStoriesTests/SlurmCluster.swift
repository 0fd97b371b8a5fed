import Foundation
import Glibc
import XCTest

/// A single-node Slurm cluster of its own, on this machine, for one test: munged with a fresh
/// key, slurmctld and slurmd from a generated slurm.conf, all in a temporary folder and run in
/// the foreground (`-F`, `-D`) as this process's children, so that they are stopped by pid.
/// The commands that talk to it (sbatch, the scripts) run through Foundation's Process as usual.
/// Commands reach it through `environment` (SLURM_CONF).
final class SlurmCluster {
    let folder = ScratchFolder()
    /// This process's environment without Slurm's own variables (a test run inside a Slurm job
    /// must not submit to that job's cluster), plus SLURM_CONF once the cluster is configured.
    private(set) var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("SLURM_") && !$0.key.hasPrefix("SBATCH_") }
    private var daemons: [Daemon] = []

    /// A daemon this cluster started, by pid.
    final class Daemon {
        let name: String
        let pid: pid_t
        private(set) var exitStatus: Int32?

        init(name: String, pid: pid_t) {
            self.name = name
            self.pid = pid
        }

        /// Reaps it (without blocking) when it has exited.
        var isRunning: Bool {
            guard exitStatus == nil else { return false }
            var status: Int32 = 0
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid || (reaped < 0 && errno == ECHILD) { exitStatus = status }
            return exitStatus == nil
        }

        func stop() {
            guard isRunning else { return }
            kill(pid, SIGTERM)
            let deadline = Date().addingTimeInterval(10)
            while isRunning, Date() < deadline { usleep(50_000) }
            guard isRunning else { return }
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            exitStatus = status
        }
    }

    static let binaries = ["/usr/sbin/munged", "/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/bin/sbatch"]
    static var isInstalled: Bool { binaries.allSatisfy(FileManager.default.isExecutableFile(atPath:)) }

    init() throws {
        let dir = folder.path
        // munged refuses a socket in a folder that not everyone may enter.
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: dir)
        for sub in ["state", "spool"] {
            try FileManager.default.createDirectory(atPath: dir + "/" + sub, withIntermediateDirectories: true)
        }
        var key = [UInt8](repeating: 0, count: 1024)
        for i in key.indices { key[i] = UInt8.random(in: .min ... .max) }
        FileManager.default.createFile(atPath: dir + "/munge.key", contents: Data(key), attributes: [.posixPermissions: 0o400])
        let socket = dir + "/munge.socket"
        try start("munged", "/usr/sbin/munged", ["-F", "--key-file=\(dir)/munge.key", "--socket=\(socket)",
                                                  "--pid-file=\(dir)/munged.pid", "--log-file=\(dir)/munged.log",
                                                  "--seed-file=\(dir)/munged.seed"])
        try wait("munged's socket") { FileManager.default.fileExists(atPath: socket) }

        let node = Self.shortHostname()
        let (controllerPort, nodePort) = (try Self.freePort(), try Self.freePort())
        let memory = min(4096, Int(ProcessInfo.processInfo.physicalMemory / 1_048_576) / 2)
        let conf = """
        ClusterName=livestoriestest
        SlurmctldHost=\(node)(127.0.0.1)
        SlurmUser=root
        SlurmdUser=root
        AuthType=auth/munge
        CredType=cred/munge
        AuthInfo=socket=\(socket)
        SlurmctldPort=\(controllerPort)
        SlurmdPort=\(nodePort)
        StateSaveLocation=\(dir)/state
        SlurmdSpoolDir=\(dir)/spool
        SlurmctldPidFile=\(dir)/slurmctld.pid
        SlurmdPidFile=\(dir)/slurmd.pid
        SlurmctldLogFile=\(dir)/slurmctld.log
        SlurmdLogFile=\(dir)/slurmd.log
        ProctrackType=proctrack/linuxproc
        TaskPlugin=task/none
        SelectType=select/cons_tres
        SelectTypeParameters=CR_CPU
        MpiDefault=none
        JobAcctGatherType=jobacct_gather/none
        AccountingStorageType=accounting_storage/none
        MailProg=/bin/true
        ReturnToService=2
        NodeName=\(node) NodeAddr=127.0.0.1 CPUs=2 RealMemory=\(memory) State=UNKNOWN
        PartitionName=test Nodes=\(node) Default=YES MaxTime=INFINITE State=UP

        """
        try conf.write(toFile: dir + "/slurm.conf", atomically: true, encoding: .utf8)
        environment["SLURM_CONF"] = dir + "/slurm.conf"
        try start("slurmctld", "/usr/sbin/slurmctld", ["-D"])
        try start("slurmd", "/usr/sbin/slurmd", ["-D", "-N", node])
        try wait("the node to be idle") { (try? self.run("/usr/bin/sinfo", ["-h", "-o", "%T"]).output)?.hasPrefix("idle") == true }
    }

    /// Spawns a daemon with posix_spawn rather than Foundation's Process: Process notices a
    /// child's exit through a descriptor the child inherits, which slurmctld's own children keep
    /// open (swift-corelibs-foundation#4795), and its children start with most signals blocked
    /// (#4772), SIGTERM too. Here the daemon gets an empty signal mask, default handlers, no
    /// descriptor of ours but its log, and is reaped with waitpid by pid.
    private func start(_ name: String, _ path: String, _ arguments: [String]) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, folder.path + "/\(name).out", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Glibc's closefrom action is not visible to Swift here; close what is open now.
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for fd in open.compactMap(Int32.init) where fd > 2 { posix_spawn_file_actions_addclose(&actions, fd) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0)=\($1)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid = pid_t()
        let status = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard status == 0 else { throw SlurmClusterError("cannot start \(path): \(String(cString: strerror(status)))") }
        daemons.append(Daemon(name: name, pid: pid))
    }

    private func wait(_ what: String, seconds: Double = 30, until ready: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !ready() {
            if let dead = daemons.first(where: { !$0.isRunning }) {
                throw SlurmClusterError("\(dead.name) exited (wait status \(dead.exitStatus ?? -1)) while waiting for \(what)\n\(logs())")
            }
            guard Date() < deadline else { throw SlurmClusterError("waited \(Int(seconds)) s for \(what)\n\(logs())") }
            usleep(200_000)
        }
    }

    /// Runs a command against this cluster; output and errors together.
    @discardableResult
    func run(_ path: String, _ arguments: [String], environment extra: [String: String] = [:]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = environment.merging(extra) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    /// Every daemon's log, for a failure's message.
    func logs() -> String {
        ["munged.out", "slurmctld.log", "slurmctld.out", "slurmd.log", "slurmd.out"].map { name in
            let text = (try? String(contentsOfFile: folder.path + "/" + name, encoding: .utf8)) ?? "(none)"
            return "--- \(name)\n" + text.split(separator: "\n").suffix(40).joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// Cancels what is left of the jobs, then stops the daemons by pid (slurmd first, munged
    /// last, since the others authenticate through it) and waits for each to be gone.
    func stop() {
        guard !daemons.isEmpty else { return }
        if daemons.allSatisfy(\.isRunning) {
            _ = try? run("/usr/bin/scancel", ["--user=\(getuid())"])
            let deadline = Date().addingTimeInterval(15)
            while Date() < deadline, (try? run("/usr/bin/squeue", ["-h"]).output)?.isEmpty == false { usleep(200_000) }
        }
        for daemon in daemons.reversed() { daemon.stop() }
        daemons.removeAll()
        // slurmd's job steps (slurmstepd, the batch scripts, the renders) are not its children
        // for long; they carry this cluster's SLURM_CONF, so none of them outlives the test.
        let deadline = Date().addingTimeInterval(5)
        while !jobProcesses().isEmpty, Date() < deadline { usleep(100_000) }
        for pid in jobProcesses() { kill(pid, SIGKILL) }
    }

    /// Processes started by this cluster: those whose environment names its slurm.conf.
    func jobProcesses() -> [pid_t] {
        let mark = Data("SLURM_CONF=\(folder.path)/slurm.conf\0".utf8)
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.compactMap(pid_t.init) ?? []
        return pids.filter { pid in
            pid != getpid() && FileManager.default.contents(atPath: "/proc/\(pid)/environ")?.range(of: mark) != nil
        }
    }

    deinit { stop() }

    static func shortHostname() -> String {
        var name = [CChar](repeating: 0, count: 256)
        gethostname(&name, name.count)
        return String(String(cString: name).split(separator: ".").first ?? "localhost")
    }

    /// A TCP port nobody listens on now: the kernel picks it for a socket bound to port 0.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw SlurmClusterError("socket: \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw SlurmClusterError("bind: \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

struct SlurmClusterError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
