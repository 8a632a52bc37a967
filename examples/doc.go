// Package examples holds task schedules that look like real MegaKernels
// and captures simulated from them; it has no code of its own. The tests
// keep them honest: the generated files match their generator, every
// schedule plans and simulates cleanly, and the committed captures are
// exactly what `cycleabi synth` makes of their schedules.
//
//   - moe_layer.yaml: one rank of an expert-parallel MoE layer (RmsNorm,
//     router MatMul and GroupedMatMul on AIC; SwiGLU, residual add and the
//     ShmemPutMemSignal/ShmemGetMem token exchange on AIV), 48 workers.
//     moe_layer.names.yaml names its graph stages and task stages for
//     decode. Both are generated: go test ./examples -update.
//   - moe_layer.bin: cycleabi synth moe_layer.yaml --capacity-scale 0.8
//     --seed 1, a capture whose busiest cores dropped a few records.
//   - aiv_pipeline.yaml: an AIV pipeline (a fused MHC block) on 40 vector
//     workers, each running the whole stage sequence on its own shard.
//   - aiv_pipeline.npy: cycleabi synth aiv_pipeline.yaml --seed 1 --format
//     npy, the AIV-pipeline layout (AIC capacity 0) as np.save writes it.
package examples
