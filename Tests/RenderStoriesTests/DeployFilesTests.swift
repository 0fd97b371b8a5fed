import Foundation
import XCTest

/// The files in deploy/ that no CI here runs for real (Kubernetes) or runs only in the slow
/// group (Slurm): each Kubernetes manifest parses as the Job it says it is, the recorder's Job
/// stops cleanly on SIGTERM and starts the recorder with the options its variables name, and
/// every Slurm batch script passes bash's syntax check.
final class DeployFilesTests: XCTestCase {
    private let deploy = CommandLineTests.packageRoot.path + "/deploy"

    /// Each document of a manifest as JSON, parsed by PyYAML (python3-yaml, which `make test`
    /// installs with the live servers' Python).
    private func documents(_ manifest: String) throws -> [[String: Any]] {
        let python = try TestPrograms.tool("python3")
        let check = try ExternalProgram.outcome(python, ["-c", "import yaml"])
        guard check.status == 0 else { throw LiveServers.unavailable("PyYAML is not installed (apt-get install python3-yaml)") }
        let script = "import json, sys, yaml; print(json.dumps(list(yaml.safe_load_all(open(sys.argv[1])))))"
        let parsed = try ExternalProgram.outcome(python, ["-c", script, manifest])
        XCTAssertEqual(parsed.status, 0, manifest + ": " + String(decoding: parsed.stderr, as: UTF8.self))
        return try XCTUnwrap(JSONSerialization.jsonObject(with: parsed.stdout) as? [[String: Any]], manifest)
    }

    func testEveryKubernetesManifestParsesAsAJob() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: deploy + "/kubernetes").filter { $0.hasSuffix(".yaml") }.sorted()
        XCTAssertEqual(names, ["record-job.yaml", "render-job.yaml"])
        for name in names {
            let docs = try documents(deploy + "/kubernetes/" + name)
            XCTAssertEqual(docs.count, 1, name)
            XCTAssertEqual(docs.first?["apiVersion"] as? String, "batch/v1", name)
            XCTAssertEqual(docs.first?["kind"] as? String, "Job", name)
            let pod = (docs.first?["spec"] as? [String: Any])?["template"] as? [String: Any]
            let containers = (pod?["spec"] as? [String: Any])?["containers"] as? [[String: Any]] ?? []
            XCTAssertEqual(containers.count, 1, name)
        }
    }

    /// The recorder's Job: a grace period long enough for the clean stop, the sizes asked of the
    /// scheduler, a restart policy a Job accepts, and its shell handing the recorder (by exec,
    /// so SIGTERM reaches it) the options its variables name. The shell is run here with a
    /// stand-in `render-stories` on PATH that prints its arguments.
    func testRecordJobStartsOneRecorderThatGetsSIGTERM() throws {
        let job = try XCTUnwrap(try documents(deploy + "/kubernetes/record-job.yaml").first)
        let pod = try XCTUnwrap(((job["spec"] as? [String: Any])?["template"] as? [String: Any])?["spec"] as? [String: Any])
        XCTAssertEqual(pod["restartPolicy"] as? String, "OnFailure")
        XCTAssertGreaterThanOrEqual(pod["terminationGracePeriodSeconds"] as? Int ?? 0, 30)
        let container = try XCTUnwrap((pod["containers"] as? [[String: Any]])?.first)
        let resources = container["resources"] as? [String: [String: String]]
        XCTAssertEqual(resources?["requests"]?["cpu"], "1")
        XCTAssertEqual(resources?["requests"]?["memory"], "512Mi")
        XCTAssertEqual(resources?["limits"]?["cpu"], "2")

        let scratch = ScratchFolder()
        let stand = scratch.file("bin/render-stories")
        try FileManager.default.createDirectory(atPath: scratch.file("bin"), withIntermediateDirectories: true)
        try "#!/bin/sh\necho \"pid $$\"\nfor a in \"$@\"; do echo \"[$a]\"; done\n".write(toFile: stand, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: stand)
        var environment = ["PATH": scratch.file("bin") + ":/usr/bin:/bin"]
        for variable in container["env"] as? [[String: String]] ?? [] { environment[variable["name"] ?? ""] = variable["value"] }
        XCTAssertEqual(environment["BOARD"], "/work/rooms/panel.json")
        environment["OUT"] = scratch.file("out/panel")
        environment["PUSH"] = "rtmp://127.0.0.1/live/panel"
        environment["DURATION"] = "6"
        let command = (container["command"] as? [String] ?? []) + (container["args"] as? [String] ?? [])
        XCTAssertEqual(command.first, "/bin/sh")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let printed = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, printed)
        let out = scratch.file("out/panel")
        let arguments = printed.split(separator: "\n").dropFirst().map { String($0.dropFirst().dropLast()) }
        XCTAssertEqual(arguments, ["record", "/work/rooms/panel.json", "-o", out, "--segments", out + "/segments", "--hls", out + "/hls",
                                   "--push", "rtmp://127.0.0.1/live/panel", "--duration", "6", "--size", "720x1280", "--fps", "30"])
        // exec: the recorder is the shell's own process, not a child the shell would have to
        // pass SIGTERM on to.
        XCTAssertEqual(printed.split(separator: "\n").first.map(String.init), "pid \(process.processIdentifier)")
    }

    func testSlurmBatchScriptsPassBashSyntaxCheck() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: deploy + "/slurm").filter { $0.hasSuffix(".sbatch") }.sorted()
        XCTAssertEqual(names, ["record.sbatch", "render.sbatch"])
        for name in names {
            let path = deploy + "/slurm/" + name
            let check = try ExternalProgram.outcome("/bin/bash", ["-n", path])
            XCTAssertEqual(check.status, 0, name + ": " + String(decoding: check.stderr, as: UTF8.self))
            XCTAssertTrue(FileManager.default.isExecutableFile(atPath: path), name)
        }
        // The recorder's: Slurm warns its batch shell before the time limit, and that shell is the
        // recorder.
        let record = try String(contentsOfFile: deploy + "/slurm/record.sbatch", encoding: .utf8)
        XCTAssertTrue(record.contains("\n#SBATCH --signal=B:TERM@60\n"), record)
        XCTAssertTrue(record.contains("\nexec \"$bin\" record "), record)
    }
}
