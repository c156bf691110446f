import DFUCore

/// Updates many devices at once, at most `parallel` at a time, dealt over the adapters; one
/// device's failure never stops the others. An interrupt cancels them all.
struct UploadBatch: Sendable {
    /// The devices in command-line order.
    let devices: [DeviceTarget]
    /// What to send: one firmware, or an nRF5 package and an MCUboot plan (each device gets the one it takes).
    let firmware: [UploadFirmware]
    /// The options.
    let settings: UploadSettings
    /// Links and interrupts.
    let context: CommandContext
    /// Where events go.
    let renderer: any UploadRenderer

    /// Runs every device and returns their outcomes in command-line order. Ctrl-C or SIGTERM cancels every upload at
    /// once: each engine stops waiting, and its protocol machine says goodbye to its device (Abort, Reset) over the
    /// link, which stays usable for that; the command bounds the whole by its grace (``UploadCommand/interruptGrace``).
    func run() async -> [DeviceOutcome] {
        let work = Task(executorPreference: context.executor) { await runAll() }
        context.interrupts.onInterrupt { work.cancel() }
        return await work.value
    }

    private func upload(_ index: Int) -> DeviceUpload {
        DeviceUpload(target: devices[index], adapter: settings.adapter(forDeviceAt: index), firmware: firmware,
                     settings: settings, context: context, renderer: renderer)
    }

    private func runAll() async -> [DeviceOutcome] {
        await withTaskGroup(of: (Int, DeviceOutcome).self) { group in
            var outcomes: [DeviceOutcome?] = Array(repeating: nil, count: devices.count)
            var next = 0
            while next < min(settings.parallel, devices.count) {
                let job = upload(next), index = next
                group.addTask { (index, await job.run()) }
                next += 1
            }
            while let (index, outcome) = await group.next() {
                outcomes[index] = outcome
                if next < devices.count {
                    let job = upload(next), index = next
                    group.addTask { (index, await job.run()) }
                    next += 1
                }
            }
            return outcomes.enumerated().map { index, outcome in
                outcome ?? DeviceOutcome(device: devices[index].label, result: .interrupted(DeviceUpload.notStarted))
            }
        }
    }
}
