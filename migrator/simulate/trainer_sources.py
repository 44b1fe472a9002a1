"""SIMULATE: the upstream lines the Trainer-side simulation models, one row per rule.

Each row names the rule (a short key), and for each Trainer release it models ("2.2": Trainer
v2.2.0 with JobSet v0.11.1 and k8s.io/api v0.35.2, the versions its go.mod names; "2.3": Trainer
v2.3.0, JobSet v0.12.0, k8s.io/api v0.36.2) the repository, tag, file and line, the text found on
that line (``anchor``: the tests check it against a local mirror when one is present) and what
the rule says. A rule missing for a release does not exist in it (``cite`` returns None).

The batch/v1 Job rules cite the API's own documentation (``k8s.io/api`` ``batch/v1/types.go``):
the Job controller's source (kubernetes/kubernetes ``pkg/controller/job``) could not be read at
the tags modelled; its counting (a failed pod counts once; under ``restartPolicy: OnFailure`` the
container restarts of running pods count) follows those documented fields.
"""

from __future__ import annotations

from typing import NamedTuple

from migrator.simulate.model import Citation


class Row(NamedTuple):
    repo: str
    tag: str
    path: str
    line: int
    anchor: str
    says: str


ROWS: dict[str, dict[str, Row]] = {
    'js_managed_by': {
        '2.2': Row(
            'kubernetes-sigs/jobset', 'v0.11.1', 'pkg/controllers/jobset_controller.go', 146,
            'if manager := managedByExternalController(js); manager != nil {',
            'a JobSet managed by another controller is skipped (no Jobs)'),
        '2.3': Row(
            'kubernetes-sigs/jobset', 'v0.12.0', 'pkg/controllers/jobset_controller.go', 144,
            'if manager := managedByExternalController(js); manager != nil {',
            'a JobSet managed by another controller is skipped (no Jobs)'),
    },
    'patch_fields': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/apis/trainer/v1alpha1/trainjob_types.go', 384,
            'type PodSpecPatch struct {',
            'a runtime patch carries only the PodSpecPatch / ContainerPatch fields'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/apis/trainer/v1alpha1/trainjob_types.go', 390,
            'type PodSpecPatch struct {',
            'a runtime patch carries only the PodSpecPatch / ContainerPatch fields'),
    },
    'count_parallelism': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/core/trainingruntime.go', 171,
            'count := ptr.Deref(rJob.Template.Spec.Parallelism, 1)',
            "a replicated job's pod count is its parallelism (default 1)"),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/core/trainingruntime.go', 189,
            'count := ptr.Deref(rJob.Template.Spec.Parallelism, 1)',
            "a replicated job's pod count is its parallelism (default 1)"),
    },
    'count_trainer_mlpolicy': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/core/trainingruntime.go', 176,
            'count = ptr.Deref(mlPolicy.NumNodes, 1)',
            "the trainer-ancestor job starts from the runtime's mlPolicy.numNodes"),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/core/trainingruntime.go', 194,
            'count = ptr.Deref(mlPolicy.NumNodes, 1)',
            "the trainer-ancestor job starts from the runtime's mlPolicy.numNodes"),
    },
    'count_min_one': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/runtime.go', 147,
            'Count:             ptr.To(max(count, 1)),',
            'a pod set has at least one pod'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/runtime.go', 147,
            'Count:             ptr.To(max(count, 1)),',
            'a pod set has at least one pod'),
    },
    'resources_replace_info': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/core/trainingruntime.go', 182,
            'Containers[j].Resources = *trainJob.Spec.Trainer.ResourcesPerNode.DeepCopy()',
            "resourcesPerNode replaces the node container's resources"),
    },
    'resources_replace_builder': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/plugins/jobset/builder.go', 148,
            'if resourcesPerNode := jobTrainer.ResourcesPerNode; resourcesPerNode != nil &&',
            "resourcesPerNode replaces the node container's resources (trainer job, and node j"
            'ob when runLauncherAsNode)'),
    },
    'resources_merge': {
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/core/trainingruntime.go', 218,
            'mergedRes, mergeErr := trainingruntimeutil.MergeResourceRequirements(',
            "resourcesPerNode is merged into the node container's resources key by key"),
    },
    'resources_merge_targets': {
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/core/trainingruntime.go', 201,
            'isMPILauncherAsNode := mlPolicy != nil && mlPolicy.MPI != nil &&',
            'merged into the trainer job, and the node job when runLauncherAsNode'),
    },
    'patch_per_job': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/core/trainingruntime.go', 226,
            'merged, err := strategicpatch.StrategicMergePatch(source, patch, batchv1.JobTempl'
            'ateSpec{})',
            'a runtime patch is merged into the job of the same name (others ignored)'),
    },
    'patch_jobset_spec': {
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/core/trainingruntime.go', 272,
            'merged, err := strategicpatch.StrategicMergePatch(source, patch, jobsetv1alpha2.J'
            'obSetSpec{})',
            'a runtime patch is merged into the whole JobSet spec (replicated jobs by name; ne'
            'w ones added)'),
    },
    'patch_order': {
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/core/trainingruntime.go', 284,
            'sort.SliceStable(jobSetTemplateSpec.Spec.ReplicatedJobs, func(i, j int) bool {',
            "the runtime's replicated-job order is restored after patching"),
    },
    'patch_metadata': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/core/trainingruntime.go', 135,
            'propagationLabels[k] = v',
            "runtime patch metadata labels/annotations are added to the JobSet's"),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/core/trainingruntime.go', 152,
            'propagationLabels[k] = v',
            "runtime patch metadata labels/annotations are added to the JobSet's"),
    },
    'torch_numnodes': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/plugins/torch/torch.go', 97,
            '*trainerPS.Count = *trainJob.Spec.Trainer.NumNodes',
            'torch: the trainer-ancestor job gets trainer.numNodes'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/plugins/torch/torch.go', 118,
            '*trainerPS.Count = *trainJob.Spec.Trainer.NumNodes',
            'torch: the trainer-ancestor job gets trainer.numNodes'),
    },
    'torch_nproc_auto': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/plugins/torch/torch.go', 100,
            'numProcPerNode := intstr.FromString("auto")',
            'torch: numProcPerNode is trainer.numProcPerNode, else auto'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/plugins/torch/torch.go', 121,
            'numProcPerNode := intstr.FromString("auto")',
            'torch: numProcPerNode is trainer.numProcPerNode, else auto'),
    },
    'torch_resources': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/plugins/torch/torch.go', 108,
            'resourcesPerNode = ptr.Deref(jobTrainer.ResourcesPerNode, corev1.ResourceRequirem'
            'ents{})',
            "torch: trainer.resourcesPerNode, else the runtime's node resources, decide auto"),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/plugins/torch/torch.go', 129,
            'resourcesPerNode = ptr.Deref(jobTrainer.ResourcesPerNode, corev1.ResourceRequirem'
            'ents{})',
            "torch: trainer.resourcesPerNode, else the runtime's node resources, decide auto"),
    },
    'torch_nproc_cpu': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/plugins/torch/torch.go', 113,
            'numProcPerNode = intstr.FromInt(max(1, getNumCPUPerNode(&resourcesPerNode)))',
            'torch: auto without GPUs is max(1, CPUs)'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/plugins/torch/torch.go', 134,
            'numProcPerNode = intstr.FromInt(max(1, getNumCPUPerNode(&resourcesPerNode)))',
            'torch: auto without GPUs is max(1, CPUs)'),
    },
    'torch_cpu_count': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/plugins/torch/torch.go', 184,
            'func getNumCPUPerNode(res *corev1.ResourceRequirements) int {',
            'CPUs: requests.cpu rounded up, else limits.cpu, else 0'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/plugins/torch/torch.go', 228,
            'func getNumCPUPerNode(res *corev1.ResourceRequirements) int {',
            'CPUs: requests.cpu rounded up, else limits.cpu, else 0'),
    },
    'torch_env_trainer': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/plugins/torch/torch.go', 120,
            'apply.UpsertEnvVars(&trainerContainer.Env, apply.EnvVars(trainJob.Spec.Trainer.En'
            'v...)...)',
            'torch: trainer.env is upserted into the node container (only when spec.trainer is'
            ' set)'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/plugins/torch/torch.go', 141,
            'apply.UpsertEnvVars(&trainerContainer.Env, apply.EnvVars(trainJob.Spec.Trainer.En'
            'v...)...)',
            'torch: trainer.env is upserted into the node container (only when spec.trainer is'
            ' set)'),
    },
    'torch_pet': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/plugins/torch/torch.go', 129,
            'WithName(constants.TorchEnvNumNodes).',
            'torch: PET_NNODES, PET_NPROC_PER_NODE, PET_NODE_RANK (completion index)'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/plugins/torch/torch.go', 147,
            'WithName(constants.TorchEnvNumNodes).',
            'torch: PET_NNODES, PET_NPROC_PER_NODE, PET_NODE_RANK (completion index)'),
    },
    'torch_master': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/plugins/torch/torch.go', 145,
            'WithName(constants.TorchEnvMasterAddr).',
            'torch: PET_MASTER_ADDR <trainjob>-node-0-0.<trainjob>, PET_MASTER_PORT 29500'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/plugins/torch/torch.go', 161,
            'WithName(constants.TorchEnvMasterAddr).',
            'torch: PET_MASTER_ADDR <trainjob>-node-0-0.<trainjob>, PET_MASTER_PORT 29500'),
    },
    'torch_tune': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/plugins/torch/torch.go', 141,
            'if !slices.Equal(trainJob.Spec.Trainer.Command, constants.TorchTuneEntrypoint) {',
            'torch: master env only when the command is not `tune run`'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/plugins/torch/torch.go', 175,
            'if !slices.Equal(trainJob.Spec.Trainer.Command, constants.TorchTuneEntrypoint) {',
            'torch: master env only when the command is not `tune run`'),
    },
    'torch_port': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/plugins/torch/torch.go', 177,
            'apply.UpsertPort(&trainerContainer.Ports, *corev1ac.ContainerPort().WithContainer'
            'Port(constants.ContainerTrainerPort))',
            'torch: container port 29500'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/plugins/torch/torch.go', 203,
            'apply.UpsertPort(&trainerContainer.Ports, *corev1ac.ContainerPort().WithContainer'
            'Port(constants.ContainerTrainerPort))',
            'torch: container port 29500'),
    },
    'torch_env_injection': {
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/plugins/torch/torch.go', 218,
            'apply.UpsertEnvVars(&container.Env, petEnvs...)',
            'torch: envInjection targets get the PET_ and master env'),
    },
    'gpu_count': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/runtime.go', 275,
            'if strings.Contains(strings.ToLower(resName.String()), "gpu") {',
            'GPUs: the first resource whose name contains gpu (requests, else limits)'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/runtime.go', 293,
            'if strings.Contains(strings.ToLower(resName.String()), "gpu") {',
            'GPUs: the first resource whose name contains gpu (requests, else limits)'),
    },
    'runtime_resources': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/runtime.go', 236,
            'func ExtractResourcePerNodeFromRuntime(info *Info) *corev1.ResourceRequirements {',
            'runtime resources: the node container of the job named node or of the trainer anc'
            'estor'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/runtime.go', 254,
            'func ExtractResourcePerNodeFromRuntime(info *Info) *corev1.ResourceRequirements {',
            'runtime resources: the node container of the job named node or of the trainer anc'
            'estor'),
    },
    'completion_index': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/constants/constants.go', 284,
            'JobCompletionIndexFieldPath string = fmt.Sprintf(',
            'rank env reads the Job completion index annotation'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/constants/constants.go', 297,
            'JobCompletionIndexFieldPath string = fmt.Sprintf(',
            'rank env reads the Job completion index annotation'),
    },
    'trainer_port': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/constants/constants.go', 72,
            'ContainerTrainerPort int32 = 29500',
            'the trainer port is 29500'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/constants/constants.go', 72,
            'ContainerTrainerPort int32 = 29500',
            'the trainer port is 29500'),
    },
    'mpi_node_count_lan': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/plugins/mpi/mpi.go', 108,
            '*node.Count = max(*trainJob.Spec.Trainer.NumNodes-1, 1)',
            'MPI: the job named node gets numNodes-1 (runLauncherAsNode)'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/plugins/mpi/mpi.go', 121,
            '*node.Count = max(*trainJob.Spec.Trainer.NumNodes-1, 1)',
            'MPI: the job named node gets numNodes-1 (runLauncherAsNode)'),
    },
    'mpi_node_count': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/plugins/mpi/mpi.go', 110,
            '*node.Count = *trainJob.Spec.Trainer.NumNodes',
            'MPI: the job named node gets trainer.numNodes'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/plugins/mpi/mpi.go', 123,
            '*node.Count = *trainJob.Spec.Trainer.NumNodes',
            'MPI: the job named node gets trainer.numNodes'),
    },
    'mpi_nproc': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/plugins/mpi/mpi.go', 116,
            'info.RuntimePolicy.MLPolicySource.MPI.NumProcPerNode = trainJob.Spec.Trainer.NumP'
            'rocPerNode',
            'MPI: slots are trainer.numProcPerNode'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/plugins/mpi/mpi.go', 129,
            'info.RuntimePolicy.MLPolicySource.MPI.NumProcPerNode = trainJob.Spec.Trainer.NumP'
            'rocPerNode',
            'MPI: slots are trainer.numProcPerNode'),
    },
    'mpi_nproc_gpu': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/plugins/mpi/mpi.go', 123,
            'if gpuQ := runtime.GetNumGPUPerNode(&resourcesPerNode); gpuQ > 1 {',
            'MPI: a runtime numProcPerNode of 1 becomes the GPU count when > 1'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/plugins/mpi/mpi.go', 136,
            'if gpuQ := runtime.GetNumGPUPerNode(&resourcesPerNode); gpuQ > 1 {',
            'MPI: a runtime numProcPerNode of 1 becomes the GPU count when > 1'),
    },
    'mpi_ssh_volume': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/plugins/mpi/mpi.go', 137,
            'WithName(constants.MPISSHAuthVolumeName).',
            'MPI: the ssh-auth Secret volume on the launcher and node jobs'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/plugins/mpi/mpi.go', 150,
            'WithName(constants.MPISSHAuthVolumeName).',
            'MPI: the ssh-auth Secret volume on the launcher and node jobs'),
    },
    'mpi_hostfile_volume': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/plugins/mpi/mpi.go', 159,
            'WithName(constants.MPIHostfileVolumeName).',
            'MPI: the hostfile ConfigMap volume on the launcher'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/plugins/mpi/mpi.go', 176,
            'WithName(constants.MPIHostfileVolumeName).',
            'MPI: the hostfile ConfigMap volume on the launcher'),
    },
    'mpi_ssh_mount': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/plugins/mpi/mpi.go', 181,
            'WithMountPath(*info.RuntimePolicy.MLPolicySource.MPI.SSHAuthMountPath),',
            'MPI: ssh keys mounted at sshAuthMountPath in node containers'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/plugins/mpi/mpi.go', 198,
            'WithMountPath(*info.RuntimePolicy.MLPolicySource.MPI.SSHAuthMountPath),',
            'MPI: ssh keys mounted at sshAuthMountPath in node containers'),
    },
    'mpi_hostfile_mount': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/plugins/mpi/mpi.go', 189,
            'WithMountPath(constants.MPIHostfileDir),',
            "MPI: the launcher's node container mounts /etc/mpi"),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/plugins/mpi/mpi.go', 206,
            'WithMountPath(constants.MPIHostfileDir),',
            "MPI: the launcher's node container mounts /etc/mpi"),
    },
    'mpi_env': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/plugins/mpi/mpi.go', 196,
            'WithName(constants.OpenMPIEnvHostFileLocation).',
            "MPI: OpenMPI env on the launcher's node container"),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/plugins/mpi/mpi.go', 213,
            'WithName(constants.OpenMPIEnvHostFileLocation).',
            "MPI: OpenMPI env on the launcher's node container"),
    },
    'mpi_impl_error': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/plugins/mpi/mpi.go', 209,
            'return fmt.Errorf("MPI implementation for %v doesn\'t supported"',
            'MPI: only OpenMPI is supported; others fail the build'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/plugins/mpi/mpi.go', 226,
            'return fmt.Errorf("MPI implementation for %v doesn\'t supported"',
            'MPI: only OpenMPI is supported; others fail the build'),
    },
    'mpi_hostfile': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/plugins/mpi/mpi.go', 307,
            'for e := range ps.Endpoints {',
            'MPI: hostfile lists every endpoint with slots=numProcPerNode'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/plugins/mpi/mpi.go', 326,
            'for e := range ps.Endpoints {',
            'MPI: hostfile lists every endpoint with slots=numProcPerNode'),
    },
    'mpi_hostfile_jobs': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/plugins/mpi/mpi.go', 326,
            'return (runLauncherAsNode && ps.Name == constants.Launcher) || ps.Name == constan'
            'ts.Node',
            'MPI: hostfile jobs are node, and launcher when runLauncherAsNode'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/plugins/mpi/mpi.go', 345,
            'return (runLauncherAsNode && ps.Name == constants.Launcher) || ps.Name == constan'
            'ts.Node',
            'MPI: hostfile jobs are node, and launcher when runLauncherAsNode'),
    },
    'mpi_default_ssh': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/apis/trainer/v1alpha1/trainingruntime_types.go', 241,
            '// +kubebuilder:default=/root/.ssh',
            'MPI: sshAuthMountPath defaults to /root/.ssh'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/apis/trainer/v1alpha1/trainingruntime_types.go', 289,
            '// +kubebuilder:default=/root/.ssh',
            'MPI: sshAuthMountPath defaults to /root/.ssh'),
    },
    'mpi_default_impl': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/apis/trainer/v1alpha1/trainingruntime_types.go', 234,
            '// +kubebuilder:default=OpenMPI',
            'MPI: mpiImplementation defaults to OpenMPI'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/apis/trainer/v1alpha1/trainingruntime_types.go', 282,
            '// +kubebuilder:default=OpenMPI',
            'MPI: mpiImplementation defaults to OpenMPI'),
    },
    'mpi_default_lan': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/apis/trainer/v1alpha1/trainingruntime_types.go', 250,
            'RunLauncherAsNode *bool `json:"runLauncherAsNode,omitempty"`',
            'MPI: runLauncherAsNode defaults to false'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/apis/trainer/v1alpha1/trainingruntime_types.go', 298,
            'RunLauncherAsNode *bool `json:"runLauncherAsNode,omitempty"`',
            'MPI: runLauncherAsNode defaults to false'),
    },
    'mpi_default_nproc': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/apis/trainer/v1alpha1/trainingruntime_types.go', 230,
            'NumProcPerNode *int32 `json:"numProcPerNode,omitempty"`',
            'MPI: numProcPerNode defaults to 1'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/apis/trainer/v1alpha1/trainingruntime_types.go', 278,
            'NumProcPerNode *int32 `json:"numProcPerNode,omitempty"`',
            'MPI: numProcPerNode defaults to 1'),
    },
    'jax_numnodes': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/plugins/jax/jax.go', 66,
            '*trainerPS.Count = *trainJob.Spec.Trainer.NumNodes',
            'JAX: the trainer-ancestor job gets trainer.numNodes'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/plugins/jax/jax.go', 66,
            '*trainerPS.Count = *trainJob.Spec.Trainer.NumNodes',
            'JAX: the trainer-ancestor job gets trainer.numNodes'),
    },
    'jax_env': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/plugins/jax/jax.go', 79,
            'WithName("JAX_NUM_PROCESSES").',
            'JAX: JAX_NUM_PROCESSES, JAX_PROCESS_ID, JAX_COORDINATOR_ADDRESS'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/plugins/jax/jax.go', 79,
            'WithName("JAX_NUM_PROCESSES").',
            'JAX: JAX_NUM_PROCESSES, JAX_PROCESS_ID, JAX_COORDINATOR_ADDRESS'),
    },
    'xgb_numnodes': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/plugins/xgboost/xgboost.go', 89,
            '*trainerPS.Count = *trainJob.Spec.Trainer.NumNodes',
            'XGBoost: the trainer-ancestor job gets trainer.numNodes'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/plugins/xgboost/xgboost.go', 89,
            '*trainerPS.Count = *trainJob.Spec.Trainer.NumNodes',
            'XGBoost: the trainer-ancestor job gets trainer.numNodes'),
    },
    'xgb_env': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/plugins/xgboost/xgboost.go', 123,
            'WithName(constants.XGBoostEnvTrackerURI).',
            'XGBoost: DMLC_TRACKER_URI/PORT, DMLC_TASK_ID, DMLC_NUM_WORKER'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/plugins/xgboost/xgboost.go', 123,
            'WithName(constants.XGBoostEnvTrackerURI).',
            'XGBoost: DMLC_TRACKER_URI/PORT, DMLC_TASK_ID, DMLC_NUM_WORKER'),
    },
    'xgb_workers': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/plugins/xgboost/xgboost.go', 113,
            'totalWorkers := numNodes * numWorkersPerNode',
            'XGBoost: DMLC_NUM_WORKER is nodes x GPUs per node (1 without GPUs)'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/plugins/xgboost/xgboost.go', 113,
            'totalWorkers := numNodes * numWorkersPerNode',
            'XGBoost: DMLC_NUM_WORKER is nodes x GPUs per node (1 without GPUs)'),
    },
    'plain_skip': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/plugins/plainml/plainml.go', 51,
            'info.RuntimePolicy.MLPolicySource.JAX != nil)) {',
            'plain ML runs unless torch, MPI or JAX is set (it runs with XGBoost too)'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/plugins/plainml/plainml.go', 51,
            'info.RuntimePolicy.MLPolicySource.JAX != nil)) {',
            'plain ML runs unless torch, MPI or JAX is set (it runs with XGBoost too)'),
    },
    'plain_numnodes': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/plugins/plainml/plainml.go', 58,
            '*trainerPS.Count = *trainJob.Spec.Trainer.NumNodes',
            'plain: the trainer-ancestor job gets trainer.numNodes'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/plugins/plainml/plainml.go', 58,
            '*trainerPS.Count = *trainJob.Spec.Trainer.NumNodes',
            'plain: the trainer-ancestor job gets trainer.numNodes'),
    },
    'plugin_order': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/core/framework.go', 59,
            'for name, factory := range r {',
            'plugins run in Go map order (not fixed)'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/core/framework.go', 59,
            'for name, factory := range r {',
            'plugins run in Go map order (not fixed)'),
    },
    'endpoints': {
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/plugins/jobset/jobset.go', 291,
            'endpoint := fmt.Sprintf("%s-%s-%d-%d.%s", trainJob.Name, *rJob.Name, replicaIdx, '
            'podIdx, subDomain)',
            'endpoint <trainjob>-<job>-<jobIdx>-<podIdx>.<subdomain>'),
    },
    'endpoints_first_replica': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/plugins/jobset/jobset.go', 240,
            'endpoint := fmt.Sprintf("%s-%s-%d-%d.%s", trainJob.Name, *rJob.Name, rJobReplicas'
            '-1, podIdx, subDomain)',
            "endpoints list only the first replica's pods"),
    },
    'endpoints_subdomain': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/plugins/jobset/jobset.go', 231,
            'subDomain = *jobSetNet.Subdomain',
            "the subdomain is the runtime's network.subdomain, else the TrainJob name"),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/plugins/jobset/jobset.go', 283,
            'subDomain = *jobSetNet.Subdomain',
            "the subdomain is the runtime's network.subdomain, else the TrainJob name"),
    },
    'parallelism': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/plugins/jobset/jobset.go', 276,
            'Template.Spec.Parallelism = ps.Count',
            "parallelism and completions are the pod set's count"),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/plugins/jobset/jobset.go', 316,
            'Template.Spec.Parallelism = ps.Count',
            "parallelism and completions are the pod set's count"),
    },
    'podset_env': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/plugins/jobset/jobset.go', 289,
            'container.Env...,',
            'plugin env, ports, volume mounts are upserted into the JobSet'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/plugins/jobset/jobset.go', 368,
            'container.Env...,',
            'plugin env, ports, volume mounts are upserted into the JobSet'),
    },
    'builder_replicas': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/plugins/jobset/builder.go', 120,
            'if ancestor == constants.AncestorTrainer {',
            'the trainer-ancestor job has replicas 1'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/plugins/jobset/builder.go', 120,
            'if ancestor == constants.AncestorTrainer {',
            'the trainer-ancestor job has replicas 1'),
    },
    'builder_image': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/plugins/jobset/builder.go', 129,
            'if image := jobTrainer.Image; image != nil {',
            "trainer image, command, args replace the trainer job's node container's"),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/plugins/jobset/builder.go', 129,
            'if image := jobTrainer.Image; image != nil {',
            "trainer image, command, args replace the trainer job's node container's"),
    },
    'builder_env': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/plugins/jobset/builder.go', 142,
            'if ancestor == constants.AncestorTrainer || b.isRunLauncherAsNode(info) && *rJob.'
            'Name == constants.Node {',
            "trainer.env goes to the trainer job's node container (and the node job's when run"
            'LauncherAsNode)'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/plugins/jobset/builder.go', 142,
            'if ancestor == constants.AncestorTrainer || b.isRunLauncherAsNode(info) && *rJob.'
            'Name == constants.Node {',
            "trainer.env goes to the trainer job's node container (and the node job's when run"
            'LauncherAsNode)'),
    },
    'builder_init': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/plugins/jobset/builder.go', 60,
            'WithName(jobsetplgconsts.InitializerEnvStorageUri).',
            'initializer: STORAGE_URI and env from spec.initializer'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/plugins/jobset/builder.go', 60,
            'WithName(jobsetplgconsts.InitializerEnvStorageUri).',
            'initializer: STORAGE_URI and env from spec.initializer'),
    },
    'builder_pod_labels': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/plugins/jobset/builder.go', 176,
            'b.Spec.ReplicatedJobs[i].Template.Spec.Template.WithLabels(labels)',
            "scheduler pod labels on every job's pods"),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/plugins/jobset/builder.go', 164,
            'b.Spec.ReplicatedJobs[i].Template.Spec.Template.WithLabels(labels)',
            "scheduler pod labels on every job's pods"),
    },
    'builder_suspend': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/plugins/jobset/builder.go', 189,
            'b.Spec.Suspend = suspend',
            "the JobSet's suspend is the TrainJob's"),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/plugins/jobset/builder.go', 177,
            'b.Spec.Suspend = suspend',
            "the JobSet's suspend is the TrainJob's"),
    },
    'cosched_label': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0',
            'pkg/runtime/framework/plugins/coscheduling/coscheduling.go',
            89,
            'info.Scheduler.PodLabels[schedulerpluginsv1alpha1.PodGroupLabel] = trainJob.Name',
            'coscheduling: pods get scheduling.x-k8s.io/pod-group=<trainjob>'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0',
            'pkg/runtime/framework/plugins/coscheduling/coscheduling.go',
            89,
            'info.Scheduler.PodLabels[schedulerpluginsv1alpha1.PodGroupLabel] = trainJob.Name',
            'coscheduling: pods get scheduling.x-k8s.io/pod-group=<trainjob>'),
    },
    'cosched_pg': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0',
            'pkg/runtime/framework/plugins/coscheduling/coscheduling.go',
            126,
            'WithMinMember(totalMembers).',
            'coscheduling: PodGroup minMember is the sum of pod-set counts'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0',
            'pkg/runtime/framework/plugins/coscheduling/coscheduling.go',
            128,
            'WithMinMember(totalMembers).',
            'coscheduling: PodGroup minMember is the sum of pod-set counts'),
    },
    'cosched_timeout': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/apis/trainer/v1alpha1/trainingruntime_types.go', 159,
            '// +kubebuilder:default=60',
            'coscheduling: scheduleTimeoutSeconds defaults to 60'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/apis/trainer/v1alpha1/trainingruntime_types.go', 159,
            '// +kubebuilder:default=60',
            'coscheduling: scheduleTimeoutSeconds defaults to 60'),
    },
    'volcano_annotation': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/plugins/volcano/volcano.go', 137,
            'info.Scheduler.PodAnnotations[volcanov1beta1.KubeGroupNameAnnotationKey] = trainJ'
            'ob.Name',
            'volcano: pods get scheduling.k8s.io/group-name=<trainjob>'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/plugins/volcano/volcano.go', 137,
            'info.Scheduler.PodAnnotations[volcanov1beta1.KubeGroupNameAnnotationKey] = trainJ'
            'ob.Name',
            'volcano: pods get scheduling.k8s.io/group-name=<trainjob>'),
    },
    'volcano_pg': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/plugins/volcano/volcano.go', 175,
            'WithMinMember(totalMembers).',
            'volcano: PodGroup minMember is the sum of pod-set counts'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/plugins/volcano/volcano.go', 177,
            'WithMinMember(totalMembers).',
            'volcano: PodGroup minMember is the sum of pod-set counts'),
    },
    'volcano_queue': {
        '2.2': Row(
            'kubeflow/trainer', 'v2.2.0', 'pkg/runtime/framework/plugins/volcano/volcano.go', 181,
            'pg.Spec.WithQueue(queue)',
            'volcano: queue from the scheduling.volcano.sh/queue-name annotation'),
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/runtime/framework/plugins/volcano/volcano.go', 183,
            'pg.Spec.WithQueue(queue)',
            'volcano: queue from the scheduling.volcano.sh/queue-name annotation'),
    },
    'managed_by': {
        '2.3': Row(
            'kubeflow/trainer', 'v2.3.0', 'pkg/controller/trainjob_controller.go', 89,
            'if trainjob.IsManagedByExternalController(&trainJob) {',
            'a TrainJob managed by another controller is skipped'),
    },
    'js_success_default': {
        '2.2': Row(
            'kubernetes-sigs/jobset', 'v0.11.1', 'pkg/webhooks/jobset_webhook.go', 120,
            'js.Spec.SuccessPolicy = &jobset.SuccessPolicy{Operator: jobset.OperatorAll}',
            'success policy defaults to All over every job'),
        '2.3': Row(
            'kubernetes-sigs/jobset', 'v0.12.0', 'pkg/webhooks/jobset_webhook.go', 114,
            'js.Spec.SuccessPolicy = &jobset.SuccessPolicy{Operator: jobset.OperatorAll}',
            'success policy defaults to All over every job'),
    },
    'js_indexed': {
        '2.2': Row(
            'kubernetes-sigs/jobset', 'v0.11.1', 'pkg/webhooks/jobset_webhook.go', 128,
            'js.Spec.ReplicatedJobs[i].Template.Spec.CompletionMode = ptr.To(batchv1.IndexedCo'
            'mpletion)',
            'jobs default to Indexed completion'),
        '2.3': Row(
            'kubernetes-sigs/jobset', 'v0.12.0', 'pkg/webhooks/jobset_webhook.go', 122,
            'js.Spec.ReplicatedJobs[i].Template.Spec.CompletionMode = ptr.To(batchv1.IndexedCo'
            'mpletion)',
            'jobs default to Indexed completion'),
    },
    'js_restart_policy': {
        '2.2': Row(
            'kubernetes-sigs/jobset', 'v0.11.1', 'pkg/webhooks/jobset_webhook.go', 132,
            'js.Spec.ReplicatedJobs[i].Template.Spec.Template.Spec.RestartPolicy = corev1.Rest'
            'artPolicyOnFailure',
            'pod restartPolicy defaults to OnFailure'),
        '2.3': Row(
            'kubernetes-sigs/jobset', 'v0.12.0', 'pkg/webhooks/jobset_webhook.go', 126,
            'js.Spec.ReplicatedJobs[i].Template.Spec.Template.Spec.RestartPolicy = corev1.Rest'
            'artPolicyOnFailure',
            'pod restartPolicy defaults to OnFailure'),
    },
    'js_dns': {
        '2.2': Row(
            'kubernetes-sigs/jobset', 'v0.11.1', 'pkg/webhooks/jobset_webhook.go', 141,
            'js.Spec.Network.EnableDNSHostnames = ptr.To(true)',
            'DNS hostnames enabled by default'),
        '2.3': Row(
            'kubernetes-sigs/jobset', 'v0.12.0', 'pkg/webhooks/jobset_webhook.go', 135,
            'js.Spec.Network.EnableDNSHostnames = ptr.To(true)',
            'DNS hostnames enabled by default'),
    },
    'js_publish': {
        '2.2': Row(
            'kubernetes-sigs/jobset', 'v0.11.1', 'pkg/webhooks/jobset_webhook.go', 144,
            'js.Spec.Network.PublishNotReadyAddresses = ptr.To(true)',
            'not-ready addresses published by default'),
        '2.3': Row(
            'kubernetes-sigs/jobset', 'v0.12.0', 'pkg/webhooks/jobset_webhook.go', 138,
            'js.Spec.Network.PublishNotReadyAddresses = ptr.To(true)',
            'not-ready addresses published by default'),
    },
    'js_subdomain': {
        '2.2': Row(
            'kubernetes-sigs/jobset', 'v0.11.1', 'pkg/controllers/jobset_controller.go', 804,
            'job.Spec.Template.Spec.Subdomain = GetSubdomain(js)',
            "pods' subdomain is network.subdomain, else the JobSet name"),
        '2.3': Row(
            'kubernetes-sigs/jobset', 'v0.12.0', 'pkg/controllers/jobset_controller.go', 955,
            'job.Spec.Template.Spec.Subdomain = GetSubdomain(js)',
            "pods' subdomain is network.subdomain, else the JobSet name"),
    },
    'js_jobs': {
        '2.2': Row(
            'kubernetes-sigs/jobset', 'v0.11.1', 'pkg/controllers/jobset_controller.go', 776,
            'for jobIdx := 0; jobIdx < int(rjob.Replicas); jobIdx++ {',
            'one Job per replica of a replicated job'),
        '2.3': Row(
            'kubernetes-sigs/jobset', 'v0.12.0', 'pkg/controllers/jobset_controller.go', 927,
            'for jobIdx := 0; jobIdx < int(rjob.Replicas); jobIdx++ {',
            'one Job per replica of a replicated job'),
    },
    'js_labels': {
        '2.2': Row(
            'kubernetes-sigs/jobset', 'v0.11.1', 'pkg/controllers/jobset_controller.go', 871,
            'labels[jobset.ReplicatedJobNameKey] = rjob.Name',
            'JobSet labels on Jobs and pods'),
        '2.3': Row(
            'kubernetes-sigs/jobset', 'v0.12.0', 'pkg/controllers/jobset_controller.go', 1022,
            'labels[jobset.ReplicatedJobNameKey] = rjob.Name',
            'JobSet labels on Jobs and pods'),
    },
    'js_suspend': {
        '2.2': Row(
            'kubernetes-sigs/jobset', 'v0.11.1', 'pkg/controllers/jobset_controller.go', 819,
            'job.Spec.Suspend = ptr.To(jobsetSuspended)',
            "a suspended JobSet's Jobs are suspended"),
        '2.3': Row(
            'kubernetes-sigs/jobset', 'v0.12.0', 'pkg/controllers/jobset_controller.go', 970,
            'job.Spec.Suspend = ptr.To(jobsetSuspended)',
            "a suspended JobSet's Jobs are suspended"),
    },
    'js_failed_first': {
        '2.2': Row(
            'kubernetes-sigs/jobset', 'v0.11.1', 'pkg/controllers/jobset_controller.go', 188,
            'if len(ownedJobs.failed) > 0 {',
            'a failed Job runs the failure policy before success is checked'),
        '2.3': Row(
            'kubernetes-sigs/jobset', 'v0.12.0', 'pkg/controllers/jobset_controller.go', 190,
            'if len(ownedJobs.failed) > 0 {',
            'a failed Job runs the failure policy before success is checked'),
    },
    'js_finished_delete': {
        '2.2': Row(
            'kubernetes-sigs/jobset', 'v0.11.1', 'pkg/controllers/jobset_controller.go', 166,
            'if err := r.deleteJobs(ctx, ownedJobs.active); err != nil {',
            'a finished JobSet deletes its active Jobs'),
        '2.3': Row(
            'kubernetes-sigs/jobset', 'v0.12.0', 'pkg/controllers/jobset_controller.go', 164,
            'if err := r.deleteJobs(ctx, ownedJobs.active); err != nil {',
            'a finished JobSet deletes its active Jobs'),
    },
    'js_success_check': {
        '2.2': Row(
            'kubernetes-sigs/jobset', 'v0.11.1', 'pkg/controllers/jobset_controller.go', 760,
            'if numJobsMatchingSuccessPolicy(js, ownedJobs.successful) >= numJobsExpectedToSuc'
            'ceed(js) {',
            'complete when enough matching Jobs succeeded'),
        '2.3': Row(
            'kubernetes-sigs/jobset', 'v0.12.0', 'pkg/controllers/jobset_controller.go', 911,
            'if numJobsMatchingSuccessPolicy(js, ownedJobs.successful) >= numJobsExpectedToSuc'
            'ceed(js) {',
            'complete when enough matching Jobs succeeded'),
    },
    'js_success_any': {
        '2.2': Row(
            'kubernetes-sigs/jobset', 'v0.11.1', 'pkg/controllers/success_policy.go', 54,
            'case jobset.OperatorAny:',
            'Any: one matching Job'),
        '2.3': Row(
            'kubernetes-sigs/jobset', 'v0.12.0', 'pkg/controllers/success_policy.go', 54,
            'case jobset.OperatorAny:',
            'Any: one matching Job'),
    },
    'js_success_all': {
        '2.2': Row(
            'kubernetes-sigs/jobset', 'v0.11.1', 'pkg/controllers/success_policy.go', 59,
            'total += int(rjob.Replicas)',
            'All: every replica of every targeted job'),
        '2.3': Row(
            'kubernetes-sigs/jobset', 'v0.12.0', 'pkg/controllers/success_policy.go', 59,
            'total += int(rjob.Replicas)',
            'All: every replica of every targeted job'),
    },
    'js_success_targets': {
        '2.2': Row(
            'kubernetes-sigs/jobset', 'v0.11.1', 'pkg/controllers/success_policy.go', 27,
            'return len(js.Spec.SuccessPolicy.TargetReplicatedJobs) == 0 || slices.Contains(js'
            '.Spec.SuccessPolicy.TargetReplicatedJobs, job.Labels[jobset.ReplicatedJobNameKey])',
            'no targets means every job'),
        '2.3': Row(
            'kubernetes-sigs/jobset', 'v0.12.0', 'pkg/controllers/success_policy.go', 27,
            'return len(js.Spec.SuccessPolicy.TargetReplicatedJobs) == 0 || slices.Contains(js'
            '.Spec.SuccessPolicy.TargetReplicatedJobs, job.Labels[jobset.ReplicatedJobNameKey])',
            'no targets means every job'),
    },
    'js_no_failure_policy': {
        '2.2': Row(
            'kubernetes-sigs/jobset', 'v0.11.1', 'pkg/controllers/failure_policy.go', 49,
            'if js.Spec.FailurePolicy == nil {',
            'no failure policy: the first failed Job fails the JobSet'),
        '2.3': Row(
            'kubernetes-sigs/jobset', 'v0.12.0', 'pkg/controllers/failure_policy.go', 53,
            'if js.Spec.FailurePolicy == nil {',
            'no failure policy: the first failed Job fails the JobSet'),
    },
    'js_default_action': {
        '2.2': Row(
            'kubernetes-sigs/jobset', 'v0.11.1', 'pkg/controllers/failure_policy.go', 41,
            'const defaultFailurePolicyRuleAction = jobset.RestartJobSet',
            'no matching rule: RestartJobSet'),
        '2.3': Row(
            'kubernetes-sigs/jobset', 'v0.12.0', 'pkg/controllers/failure_policy.go', 45,
            'const defaultFailurePolicyRuleAction = jobset.RestartJobSet',
            'no matching rule: RestartJobSet'),
    },
    'js_rule_reason': {
        '2.2': Row(
            'kubernetes-sigs/jobset', 'v0.11.1', 'pkg/controllers/failure_policy.go', 141,
            'ruleAppliesToJobFailureReason := len(rule.OnJobFailureReasons) == 0',
            'a rule matches the Job failure reason (any when empty)'),
        '2.3': Row(
            'kubernetes-sigs/jobset', 'v0.12.0', 'pkg/controllers/failure_policy.go', 145,
            'ruleAppliesToJobFailureReason := len(rule.OnJobFailureReasons) == 0',
            'a rule matches the Job failure reason (any when empty)'),
    },
    'js_rule_target': {
        '2.2': Row(
            'kubernetes-sigs/jobset', 'v0.11.1', 'pkg/controllers/failure_policy.go', 158,
            'ruleAppliesToParentReplicatedJob := len(rule.TargetReplicatedJobs) == 0',
            "a rule matches the failed Job's replicated job (any when empty)"),
        '2.3': Row(
            'kubernetes-sigs/jobset', 'v0.12.0', 'pkg/controllers/failure_policy.go', 162,
            'ruleAppliesToParentReplicatedJob := len(rule.TargetReplicatedJobs) == 0',
            "a rule matches the failed Job's replicated job (any when empty)"),
    },
    'js_max_restarts': {
        '2.2': Row(
            'kubernetes-sigs/jobset', 'v0.11.1', 'pkg/controllers/failure_policy.go', 220,
            'js.Spec.FailurePolicy.MaxRestarts {',
            'RestartJobSet fails the JobSet once maxRestarts restarts counted'),
        '2.3': Row(
            'kubernetes-sigs/jobset', 'v0.12.0', 'pkg/controllers/failure_policy.go', 350,
            'js.Spec.FailurePolicy.MaxRestarts {',
            'RestartJobSet fails the JobSet once maxRestarts restarts counted'),
    },
    'js_recreate': {
        '2.2': Row(
            'kubernetes-sigs/jobset', 'v0.11.1', 'pkg/controllers/failure_policy.go', 191,
            'js.Status.Restarts += 1',
            'a restart recreates every Job'),
        '2.3': Row(
            'kubernetes-sigs/jobset', 'v0.12.0', 'pkg/controllers/failure_policy.go', 195,
            'js.Status.Restarts += 1',
            'a restart recreates every Job'),
    },
    'js_fail_action': {
        '2.2': Row(
            'kubernetes-sigs/jobset', 'v0.11.1', 'pkg/controllers/failure_policy.go', 209,
            'var failJobSetActionApplier',
            'FailJobSet fails the JobSet'),
        '2.3': Row(
            'kubernetes-sigs/jobset', 'v0.12.0', 'pkg/controllers/failure_policy.go', 215,
            'var failJobSetActionApplier',
            'FailJobSet fails the JobSet'),
    },
    'js_ignore_max': {
        '2.2': Row(
            'kubernetes-sigs/jobset', 'v0.11.1', 'pkg/controllers/failure_policy.go', 244,
            'var restartJobSetAndIgnoreMaxRestartsActionApplier',
            'RestartJobSetAndIgnoreMaxRestarts restarts without counting'),
        '2.3': Row(
            'kubernetes-sigs/jobset', 'v0.12.0', 'pkg/controllers/failure_policy.go', 267,
            'var restartJobSetAndIgnoreMaxRestartsActionApplier',
            'RestartJobSetAndIgnoreMaxRestarts restarts without counting'),
    },
    'js_max_restarts_type': {
        '2.2': Row(
            'kubernetes-sigs/jobset', 'v0.11.1', 'api/jobset/v1alpha2/jobset_types.go', 442,
            'MaxRestarts int32 `json:"maxRestarts,omitempty"`',
            'maxRestarts defaults to 0'),
        '2.3': Row(
            'kubernetes-sigs/jobset', 'v0.12.0', 'api/jobset/v1alpha2/jobset_types.go', 482,
            'MaxRestarts int32 `json:"maxRestarts,omitempty"`',
            'maxRestarts defaults to 0'),
    },
    'js_depends_on': {
        '2.2': Row(
            'kubernetes-sigs/jobset', 'v0.11.1', 'api/jobset/v1alpha2/jobset_types.go', 327,
            'DependsOn []DependsOn `json:"dependsOn,omitempty"',
            'dependsOn: a job starts once the named job is Ready or Complete'),
        '2.3': Row(
            'kubernetes-sigs/jobset', 'v0.12.0', 'api/jobset/v1alpha2/jobset_types.go', 353,
            'DependsOn []DependsOn `json:"dependsOn,omitempty"',
            'dependsOn: a job starts once the named job is Ready or Complete'),
    },
    'k_requests_limits': {
        '2.2': Row(
            'kubernetes/api', 'v0.35.2', 'core/v1/types.go', 2840,
            'otherwise to an implementation-defined value. Requests cannot exceed Limits.',
            'a request above its limit: the API server refuses the pod'),
        '2.3': Row(
            'kubernetes/api', 'v0.36.2', 'core/v1/types.go', 2848,
            'otherwise to an implementation-defined value. Requests cannot exceed Limits.',
            'a request above its limit: the API server refuses the pod'),
    },
    'k_backoff': {
        '2.2': Row(
            'kubernetes/api', 'v0.35.2', 'batch/v1/types.go', 351,
            '// Defaults to 6, unless backoffLimitPerIndex (only Indexed Job) is specified.',
            'backoffLimit defaults to 6'),
        '2.3': Row(
            'kubernetes/api', 'v0.36.2', 'batch/v1/types.go', 351,
            '// Defaults to 6, unless backoffLimitPerIndex (only Indexed Job) is specified.',
            'backoffLimit defaults to 6'),
    },
    'k_backoff_field': {
        '2.2': Row(
            'kubernetes/api', 'v0.35.2', 'batch/v1/types.go', 354,
            'BackoffLimit *int32 `json:"backoffLimit,omitempty"',
            'retries before the Job is marked failed'),
        '2.3': Row(
            'kubernetes/api', 'v0.36.2', 'batch/v1/types.go', 354,
            'BackoffLimit *int32 `json:"backoffLimit,omitempty"',
            'retries before the Job is marked failed'),
    },
    'k_pfp_default': {
        '2.2': Row(
            'kubernetes/api', 'v0.35.2', 'batch/v1/types.go', 333,
            '// If empty, the default behaviour applies - the counter of failed pods,',
            'without podFailurePolicy each failed pod counts against backoffLimit'),
        '2.3': Row(
            'kubernetes/api', 'v0.36.2', 'batch/v1/types.go', 333,
            '// If empty, the default behaviour applies - the counter of failed pods,',
            'without podFailurePolicy each failed pod counts against backoffLimit'),
    },
    'k_pfp_onfailure': {
        '2.2': Row(
            'kubernetes/api', 'v0.35.2', 'batch/v1/types.go', 336,
            '// with restartPolicy=OnFailure.',
            'podFailurePolicy cannot be used with restartPolicy OnFailure'),
        '2.3': Row(
            'kubernetes/api', 'v0.36.2', 'batch/v1/types.go', 336,
            '// with restartPolicy=OnFailure.',
            'podFailurePolicy cannot be used with restartPolicy OnFailure'),
    },
    'k_pfp_order': {
        '2.2': Row(
            'kubernetes/api', 'v0.35.2', 'batch/v1/types.go', 248,
            '// A list of pod failure policy rules. The rules are evaluated in order.',
            'rules in order; the first match decides'),
        '2.3': Row(
            'kubernetes/api', 'v0.36.2', 'batch/v1/types.go', 248,
            '// A list of pod failure policy rules. The rules are evaluated in order.',
            'rules in order; the first match decides'),
    },
    'k_pfp_exit0': {
        '2.2': Row(
            'kubernetes/api', 'v0.35.2', 'batch/v1/types.go', 170,
            '// (exit code 0) are excluded from the requirement check.',
            'onExitCodes: In/NotIn over non-zero exit codes'),
        '2.3': Row(
            'kubernetes/api', 'v0.36.2', 'batch/v1/types.go', 170,
            '// (exit code 0) are excluded from the requirement check.',
            'onExitCodes: In/NotIn over non-zero exit codes'),
    },
    'k_pfp_failjob': {
        '2.2': Row(
            'kubernetes/api', 'v0.35.2', 'batch/v1/types.go', 222,
            "// - FailJob: indicates that the pod's job is marked as Failed and all",
            'FailJob fails the Job'),
        '2.3': Row(
            'kubernetes/api', 'v0.36.2', 'batch/v1/types.go', 222,
            "// - FailJob: indicates that the pod's job is marked as Failed and all",
            'FailJob fails the Job'),
    },
    'k_pfp_failindex': {
        '2.2': Row(
            'kubernetes/api', 'v0.35.2', 'batch/v1/types.go', 224,
            "// - FailIndex: indicates that the pod's index is marked as Failed and will",
            'FailIndex fails the index, not restarted'),
        '2.3': Row(
            'kubernetes/api', 'v0.36.2', 'batch/v1/types.go', 224,
            "// - FailIndex: indicates that the pod's index is marked as Failed and will",
            'FailIndex fails the index, not restarted'),
    },
    'k_pfp_ignore': {
        '2.2': Row(
            'kubernetes/api', 'v0.35.2', 'batch/v1/types.go', 226,
            '// - Ignore: indicates that the counter towards the .backoffLimit is not',
            'Ignore: not counted, replacement created'),
        '2.3': Row(
            'kubernetes/api', 'v0.36.2', 'batch/v1/types.go', 226,
            '// - Ignore: indicates that the counter towards the .backoffLimit is not',
            'Ignore: not counted, replacement created'),
    },
    'k_pfp_count': {
        '2.2': Row(
            'kubernetes/api', 'v0.35.2', 'batch/v1/types.go', 228,
            '// - Count: indicates that the pod is handled in the default way - the',
            'Count: counted against backoffLimit'),
        '2.3': Row(
            'kubernetes/api', 'v0.36.2', 'batch/v1/types.go', 228,
            '// - Count: indicates that the pod is handled in the default way - the',
            'Count: counted against backoffLimit'),
    },
    'k_pfp_conditions': {
        '2.2': Row(
            'kubernetes/api', 'v0.35.2', 'batch/v1/types.go', 238,
            '// Represents the requirement on the pod conditions. The requirement is represented',
            'onPodConditions match a pod condition (DisruptionTarget for evictions)'),
        '2.3': Row(
            'kubernetes/api', 'v0.36.2', 'batch/v1/types.go', 238,
            '// Represents the requirement on the pod conditions. The requirement is represented',
            'onPodConditions match a pod condition (DisruptionTarget for evictions)'),
    },
    'k_per_index': {
        '2.2': Row(
            'kubernetes/api', 'v0.35.2', 'batch/v1/types.go', 357,
            '// index before marking this index as failed. When enabled the number of',
            'backoffLimitPerIndex: retries per index'),
        '2.3': Row(
            'kubernetes/api', 'v0.36.2', 'batch/v1/types.go', 357,
            '// index before marking this index as failed. When enabled the number of',
            'backoffLimitPerIndex: retries per index'),
    },
    'k_max_failed_indexes': {
        '2.2': Row(
            'kubernetes/api', 'v0.35.2', 'batch/v1/types.go', 366,
            '// failed, when backoffLimitPerIndex is set. Once the number of failed',
            'maxFailedIndexes: more failed indexes fail the Job'),
        '2.3': Row(
            'kubernetes/api', 'v0.36.2', 'batch/v1/types.go', 366,
            '// failed, when backoffLimitPerIndex is set. Once the number of failed',
            'maxFailedIndexes: more failed indexes fail the Job'),
    },
    'k_success_policy': {
        '2.2': Row(
            'kubernetes/api', 'v0.35.2', 'batch/v1/types.go', 261,
            'the "SuccessCriteriaMet" condition is added, and the lingering pods are removed.',
            'a Job successPolicy rule met completes the Job and removes its other pods'),
        '2.3': Row(
            'kubernetes/api', 'v0.36.2', 'batch/v1/types.go', 261,
            'the "SuccessCriteriaMet" condition is added, and the lingering pods are removed.',
            'a Job successPolicy rule met completes the Job and removes its other pods'),
    },
    'k_indexed_complete': {
        '2.2': Row(
            'kubernetes/api', 'v0.35.2', 'batch/v1/types.go', 425,
            '// The Job is considered complete when there is one successfully completed Pod',
            'Indexed: complete when every index has a succeeded pod'),
        '2.3': Row(
            'kubernetes/api', 'v0.36.2', 'batch/v1/types.go', 425,
            '// The Job is considered complete when there is one successfully completed Pod',
            'Indexed: complete when every index has a succeeded pod'),
    },
    'k_hostname': {
        '2.2': Row(
            'kubernetes/api', 'v0.35.2', 'batch/v1/types.go', 431,
            '// the Pod hostname takes the form `$(job-name)-$(index)`.',
            'Indexed pod hostname $(job-name)-$(index)'),
        '2.3': Row(
            'kubernetes/api', 'v0.36.2', 'batch/v1/types.go', 431,
            '// the Pod hostname takes the form `$(job-name)-$(index)`.',
            'Indexed pod hostname $(job-name)-$(index)'),
    },
    'k_restart_policies': {
        '2.2': Row(
            'kubernetes/api', 'v0.35.2', 'batch/v1/types.go', 401,
            '// The only allowed template.spec.restartPolicy values are "Never" or "OnFailure".',
            "a Job's pods restart Never or OnFailure"),
        '2.3': Row(
            'kubernetes/api', 'v0.36.2', 'batch/v1/types.go', 401,
            '// The only allowed template.spec.restartPolicy values are "Never" or "OnFailure".',
            "a Job's pods restart Never or OnFailure"),
    },
    'k_deadline': {
        '2.2': Row(
            'kubernetes/api', 'v0.35.2', 'batch/v1/types.go', 323,
            '// may be continuously active before the system tries to terminate it; value',
            'activeDeadlineSeconds'),
        '2.3': Row(
            'kubernetes/api', 'v0.36.2', 'batch/v1/types.go', 323,
            '// may be continuously active before the system tries to terminate it; value',
            'activeDeadlineSeconds'),
    },
    'k_disruption': {
        '2.2': Row(
            'kubernetes/api', 'v0.35.2', 'core/v1/types.go', 3518,
            'DisruptionTarget PodConditionType = "DisruptionTarget"',
            'an evicted pod gets the DisruptionTarget condition'),
        '2.3': Row(
            'kubernetes/api', 'v0.36.2', 'core/v1/types.go', 3534,
            'DisruptionTarget PodConditionType = "DisruptionTarget"',
            'an evicted pod gets the DisruptionTarget condition'),
    },
    'k_onfailure': {
        '2.2': Row(
            'kubernetes/api', 'v0.35.2', 'core/v1/types.go', 3637,
            'RestartPolicyOnFailure RestartPolicy = "OnFailure"',
            'OnFailure: the kubelet restarts a failed container in place'),
        '2.3': Row(
            'kubernetes/api', 'v0.36.2', 'core/v1/types.go', 3674,
            'RestartPolicyOnFailure RestartPolicy = "OnFailure"',
            'OnFailure: the kubelet restarts a failed container in place'),
    },
}


def cite(key: str, version: str) -> Citation | None:
    """The citation of rule ``key`` at release ``version`` ("2.2"/"2.3"), None when the rule does
    not exist there."""
    row = ROWS.get(key, {}).get(version)
    if row is None:
        return None
    return Citation(row.repo, row.tag, row.path, row.line, row.says)
