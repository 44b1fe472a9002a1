"""SIMULATE: training-operator v1.9.2 — the pods it creates for a PyTorchJob, TFJob, XGBoostJob,
PaddleJob or JAXJob, and how its reconcile loop reacts when their containers finish.

``world`` follows one reconcile of an admitted job: the validating webhook (a job it refuses
raises ``Rejected``), the defaulting the controller applies (``Scheme.Default``: replica type
names to CamelCase, replicas 1, the kind's restart policy, the kind's default port on the
framework container), then for every replica type and index ``createNewPod``: the template,
the ``training.kubeflow.org/*`` labels, the kind's ``SetClusterSpec`` (env, init containers),
the pod restart policy and, with a gang scheduler, the scheduler name; plus the headless
service of the same name per pod (``ReconcileServices``) and a PodGroup.

``react`` follows one event through the kubelet (in-place restart under Always/OnFailure),
``ReconcilePods`` (a failed pod is deleted and recreated under OnFailure/Always and under
ExitCode with a retryable code, >= 128), ``ReconcileJobs`` (backoffLimit) and the kind's
``UpdateJobStatus`` (success and failure rules).

Two simplifications, both stated in every ``why`` they shape: an ``evict`` is the kubelet's
(node pressure): the pod stays, phase Failed, reason Evicted, and its main container's exit
code is taken as 137 (with no terminated state the operator reads 0xbeef: retryable alike);
and the work queue's requeue count (``NumRequeues``) is taken as 0, so the "new failure"
backoff check fails a job only when backoffLimit is 0.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from migrator.simulate.legacy_common import (
    TRAINING_OPERATOR,
    Cleanup,
    Reacted,
    Rejected,
    Run,
    as_bool,
    as_int,
    as_list,
    as_map,
    as_str,
    cite,
    containers,
    count,
    plain,
)
from migrator.simulate.model import Citation, Event, Phase, Pod, World

CONTROLLER = "training-operator v1.9.2"
GROUP_LABEL = "training.kubeflow.org/"
RESTART_POLICIES = ("Always", "OnFailure", "Never", "ExitCode")
EVICTED_EXIT_CODE = 137
INIT_IMAGE = "alpine:3.10"
INIT_TRIES = 100


def _c(path: str, line: int, says: str, token: str) -> Citation:
    return cite(TRAINING_OPERATOR, path, line, says, token)


P = "pkg/controller.v1/"
A = "pkg/apis/kubeflow.org/v1/"
W = "pkg/webhooks/"

# --- citations -------------------------------------------------------------------------------

C_POD_NAME = _c(P + "common/pod.go", 414, "pod name <job>-<rtype>-<index>", "GenGeneralName(")
C_SERVICE = _c(P + "common/service.go", 243, "one headless service per pod, named as the pod",
               "service.Name = GenGeneralName")
C_HEADLESS = _c(P + "common/service.go", 231, "services are headless", 'ClusterIP: "None"')
C_SERVICE_PORTS = _c("pkg/core/service.go", 94, "service ports: the framework container's ports",
                     "ports[port.Name] = port.ContainerPort")
C_HPA = _c(P + "pytorch/hpa.go", 36, "an HPA only for an elastic job with metrics",
           "pytorchJob.Spec.ElasticPolicy.Metrics == nil")
C_HPA_SPEC = _c(P + "pytorch/hpa.go", 93, "the HPA scales between the elastic min and max",
                "MinReplicas: pytorchJob.Spec.ElasticPolicy.MinReplicas,")
C_LABELS = _c(P + "common/job_controller.go", 239, "operator-name and job-name labels",
              "apiv1.OperatorNameLabel: jc.Controller.ControllerName()")
C_ROLE = _c(P + "common/pod.go", 407, "job-role=master on the master-role pod",
            'SetJobRole(labels, "master")')
C_CLUSTER_SPEC = _c(P + "common/pod.go", 424, "the kind's SetClusterSpec shapes each pod",
                    "jc.Controller.SetClusterSpec(job, podTemplate, rt, idxStr)")
C_RESTART_POD = _c(P + "common/pod.go", 435, "pod restartPolicy from the replica spec",
                   "core.SetRestartPolicy(podTemplate, spec)")
C_EXITCODE_NEVER = _c("pkg/core/pod.go", 84, "ExitCode: the pod's restartPolicy is Never",
                      "podTemplateSpec.Spec.RestartPolicy = v1.RestartPolicyNever")
C_GANG_DECORATE = _c(P + "common/pod.go", 446, "with gang scheduling the template is decorated",
                     "DecoratePodTemplateSpec(podTemplate, metaObject, rt)")
C_VOLCANO_NAME = _c(P + "control/podgroup_control.go", 67,
                    "Volcano: schedulerName set only when empty",
                    "pts.Spec.SchedulerName = v.GetSchedulerName()")
C_PLUGINS_NAME = _c(P + "control/podgroup_control.go", 133,
                    "scheduler-plugins: schedulerName set only when empty",
                    "pts.Spec.SchedulerName = s.GetSchedulerName()")
C_PG_MIN = _c(P + "common/job.go", 251, "PodGroup minMember defaults to all replicas",
              "minMember := totalReplicas")
C_PG_MIN_SET = _c(P + "common/job.go", 259, "schedulingPolicy.minAvailable sets minMember",
                  "minMember = *minAvailable")
C_PG_QUEUE = _c(P + "common/job.go", 252, "Volcano queue defaults to default", 'queue := "default"')
C_PG_POLICY = _c(P + "common/job.go", 261, "schedulingPolicy.queue, priorityClass, timeout",
                 "if q := runPolicy.SchedulingPolicy.Queue; len(q) != 0 {")
C_GANG_ON = _c(P + "common/job.go", 250, "a PodGroup only when gang scheduling is enabled",
               "if jc.Config.EnableGangScheduling() {")
C_SUSPEND = _c(P + "common/job.go", 146, "a suspended job has its pods deleted, none created",
               "if trainutil.IsJobSuspended(runPolicy) {")
C_MANAGED = _c(P + "common/job.go", 460, "a job managed by another controller is skipped",
               "*controllerName != apiv1.KubeflowJobsController")
C_MANAGED_OK = _c("pkg/common/util/webhooks.go", 19,
                  "managedBy must be the operator or MultiKueue",
                  "if !supportedJobControllers.Has(manager) {")
C_RECREATE = _c(P + "common/pod.go", 352,
                "a failed pod is deleted (then recreated) under OnFailure, Always, or ExitCode "
                "with a retryable code", "RestartPolicyExitCode && trainutil.IsRetryableExitCode")
C_PERMANENT = _c(P + "common/pod.go", 367, "ExitCode with a permanent code fails the job",
                 "RestartPolicyExitCode && !trainutil.IsRetryableExitCode")
C_RETRYABLE = _c("pkg/util/train/train_util.go", 25, "retryable exit codes are >= 128",
                 "return exitCode >= 128")
C_NO_STATE = _c(P + "common/pod.go", 340, "no terminated state reads as 0xbeef (retryable)",
                "var exitCode int32 = 0xbeef")
C_NEW_FAILURE = _c(P + "common/job.go", 197,
                   "a new failed pod fails the job when requeues+1 > backoffLimit",
                   "exceedsBackoffLimit = jobHasNewFailure")
C_PAST_BACKOFF = _c(P + "common/job.go", 200, "restart counts checked against backoffLimit",
                    "pastBackoffLimit, err = jc.PastBackoffLimit(")
C_BACKOFF_TYPES = _c("pkg/core/job.go", 103,
                     "only OnFailure, Always and ExitCode replicas count toward backoffLimit",
                     "spec.RestartPolicy != apiv1.RestartPolicyOnFailure")
C_BACKOFF_RUNNING = _c("pkg/core/job.go", 115, "restarts of running pods only",
                       "if po.Status.Phase != v1.PodRunning {")
C_BACKOFF_ZERO = _c("pkg/core/job.go", 130, "backoffLimit 0: any restart fails the job",
                    "return result > 0, nil")
C_BACKOFF_SUM = _c("pkg/core/job.go", 132, "the sum of restarts reaching backoffLimit fails it",
                   "return result >= *runPolicy.BackoffLimit, nil")
C_CLEAN = _c(P + "common/job.go", 124, "a finished job's pods are cleaned up by cleanPodPolicy",
             "if err = jc.CleanUpResources(runPolicy, runtimeObject, metaObject, jobStatus, pods)")
C_CLEAN_NONE = _c(P + "common/job.go", 49, "cleanPodPolicy None (the default) keeps every pod",
                  "*runPolicy.CleanPodPolicy == apiv1.CleanPodPolicyNone")
C_CLEAN_RUNNING = _c(P + "common/job.go", 57, "Running deletes only running and pending pods",
                     "*runPolicy.CleanPodPolicy == apiv1.CleanPodPolicyRunning")
C_FAILED_STICKY = _c("pkg/util/status.go", 105, "a Failed job never changes condition again",
                     "if IsFailed(*status) {")
C_CAMEL = _c(A + "defaulting_utils.go", 52, "replica types are matched case-insensitively",
             "strings.EqualFold(string(t), string(typ))")
C_REPLICAS = _c(A + "defaulting_utils.go", 44, "replicas default to 1",
                "replicaSpec.Replicas = ptr.To[int32](replicas)")
C_RESTART_DEFAULT = _c(A + "defaulting_utils.go", 38, "the kind's default restart policy",
                       "replicaSpec.RestartPolicy = defaultRestartPolicy")
C_PORT_INDEX = _c(A + "defaulting_utils.go", 16,
                  "the default port goes to container 0 when none has the framework name",
                  "return 0")

# PyTorchJob
PT = P + "pytorch/"
C_PT_UNBUFFERED = _c(PT + "envvar.go", 58, "PYTHONUNBUFFERED=1 in every container",
                     'Name:  "PYTHONUNBUFFERED"')
C_PT_WORLD = _c(PT + "envvar.go", 64, "WORLD_SIZE = all replicas x nprocPerNode",
                "worldSize := int(totalReplicas) * nprocPerNode")
C_PT_NPROC_INT = _c(PT + "envvar.go", 136, "a non-integer nprocPerNode counts as 1",
                    "strconv.Atoi(*job.Spec.NprocPerNode)")
C_PT_RANK = _c(PT + "envvar.go", 82, "Worker rank = index + 1 (with a Master)",
               "rank = rank + 1")
C_PT_RANK_ENV = _c(PT + "envvar.go", 90, "RANK and PET_NODE_RANK", 'Name:  "RANK"')
C_PT_NPROC = _c(PT + "envvar.go", 99, "PET_NPROC_PER_NODE from spec.nprocPerNode",
                "if pytorchjob.Spec.NprocPerNode != nil {")
C_PT_NNODES = _c(PT + "envvar.go", 120, "PET_NNODES = all replicas (not elastic)",
                 "Name:  EnvNnodes")
C_PT_NPROC_DEFAULT = _c(A + "pytorch_defaults.go", 71, "nprocPerNode defaults to auto",
                        "job.Spec.NprocPerNode = &DefaultNprocPerNode")
C_PT_MASTER_ADDR = _c(PT + "master.go", 42, "MASTER_ADDR is <job>-master-0",
                      "masterAddr := replicaName(")
C_PT_MASTER_PORT = _c(PT + "master.go", 37, "MASTER_PORT is the master's pytorchjob-port",
                      "masterPort, err := getPortFromPyTorchJob(")
C_PT_ELASTIC_HOST = _c(PT + "elastic.go", 150, "rendezvous host defaults to <job>-worker-0",
                       'host = fmt.Sprintf("%s-worker-0", job.Name)')
C_PT_ELASTIC_PORT = _c(PT + "elastic.go", 158, "rendezvous port defaults to the worker's port",
                       "getPortFromPyTorchJob(job, kubeflowv1.PyTorchJobReplicaTypeWorker)")
C_PT_ELASTIC_BACKEND = _c(PT + "elastic.go", 195, "rendezvous backend defaults to c10d",
                          "Value: string(kubeflowv1.BackendC10D)")
C_PT_ELASTIC_NNODES = _c(PT + "elastic.go", 141, "elastic PET_NNODES is min:max",
                         'Value: fmt.Sprintf("%d:%d",')
C_PT_ELASTIC_MINMAX = _c(A + "pytorch_defaults.go", 45, "min/max replicas default to each other",
                         "ElasticPolicy.MinReplicas = pytorchJob.Spec.ElasticPolicy.MaxReplicas")
C_PT_ELASTIC_WORKERS = _c(A + "pytorch_defaults.go", 51,
                          "min/max replicas both unset: the Worker replicas",
                          "ElasticPolicy.MaxReplicas = workerReplicas")
C_PT_INIT = _c(PT + "initcontainer.go", 124, "Workers get the init container when a Master exists",
               "if rtype == strings.ToLower(string(kubeflowv1.PyTorchJobReplicaTypeWorker)) {")
C_PT_INIT_TEMPLATE = _c(PT + "initcontainer.go", 46, "it waits for the master's DNS name",
                        "nslookup {{.MasterAddr}}")
C_PT_INIT_IMAGE = _c("pkg/config/config.go", 28, "init container image alpine:3.10",
                     'PyTorchInitContainerImageDefault = "alpine:3.10"')
C_PT_SUCCESS_MASTER = _c(PT + "pytorchjob_controller.go", 390,
                         "with a Master: the job succeeds when the Master succeeds",
                         "if expected == 0 {")
C_PT_SUCCESS_WORKERS = _c(PT + "pytorchjob_controller.go", 409,
                          "without a Master: all Workers succeed (elastic: any one)",
                          "if expected == 0 || (pytorchjob.Spec.ElasticPolicy != nil")
C_PT_FAILED = _c(PT + "pytorchjob_controller.go", 428,
                 "a failed replica restarts the job unless its policy is Never",
                 "if failed > 0 && (specReplicas > succeeded+running) {")
C_PT_WORKER0 = _c(PT + "pytorchjob_controller.go", 505, "without a Master, Worker 0 is master",
                  "return rtype == kubeflowv1.PyTorchJobReplicaTypeWorker && index == 0")

# TFJob
TF = P + "tensorflow/"
C_TF_LOCAL = _c(TF + "tfjob_controller.go", 562, "no TF_CONFIG for a single-replica job",
                "if !isDistributed(tfjob) {")
C_TF_ONLY = _c(TF + "tfjob_controller.go", 576, "TF_CONFIG only in the tensorflow container",
               "Containers[i].Name == kubeflowv1.TFJobDefaultContainerName")
C_TF_CLUSTER = _c(TF + "tensorflow.go", 174, "cluster entries <job>-<rtype>-<i>.<ns>.svc:<port>",
                  'svcName := hostName + "." + tfjob.Namespace + "." + "svc"')
C_TF_ENV_CLOUD = _c(TF + "tensorflow.go", 145, 'TF_CONFIG environment "cloud"',
                    'Environment: "cloud",')
C_TF_SPARSE = _c(TF + "tensorflow.go", 126, "enableDynamicWorker: a sparse cluster spec",
                 "sparseCluster := convertClusterSpecToSparseClusterSpec(")
C_TF_PORT = _c(TF + "util.go", 36, "a replica without tfjob-port uses 2222",
               "return kubeflowv1.TFJobDefaultPort, nil")
C_TF_CHIEF = _c(TF + "tfjob_controller.go", 445, "with Chief/Master: the job follows it",
                "if kubeflowv1.IsChiefOrMaster(rtype) {")
C_TF_WORKER0 = _c(TF + "tfjob_controller.go", 467,
                  "without Chief/Master: worker 0 succeeds (default) or all workers (AllWorkers)",
                  "if expected == 0 || (worker0Completed &&")
C_TF_RESTARTING = _c(TF + "tfjob_controller.go", 489, "a restarting replica does not fail the job",
                     "if existingRestartingCondition != nil {")
C_TF_DYNAMIC = _c(TF + "tfjob_controller.go", 495, "enableDynamicWorker: failed workers ignored",
                  "if tfJob.Spec.EnableDynamicWorker && rtype == kubeflowv1.TFJobReplicaTypeWorker")
C_TF_FAILED = _c(TF + "tfjob_controller.go", 507, "any other failed replica fails the job",
                 "kubeflowv1.JobFailed")
C_TF_MASTER_ROLE = _c(TF + "tfjob_controller.go", 601, "Chief/Master pods carry job-role=master",
                      "rtype == kubeflowv1.TFJobReplicaTypeChief ||")

# XGBoostJob
XG = P + "xgboost/"
C_XG_RANK = _c(XG + "xgboost.go", 46, "Worker rank = index + Master replicas",
               "rank += masterReplicas")
C_XG_ENV = _c(XG + "xgboost.go", 78, "MASTER_PORT/ADDR, WORLD_SIZE, RANK in every container",
              'Name:  "MASTER_PORT",')
C_XG_WORKERS = _c(XG + "xgboost.go", 67, "WORKER_ADDRS lists total-1 worker names",
                  "workerAddrs = make([]string, totalReplicas-1)")
C_XG_SUCCESS = _c(XG + "xgboostjob_controller.go", 370, "the job succeeds when the Master succeeds",
                  "if rtype == kubeflowv1.XGBoostJobReplicaTypeMaster {")
C_XG_FAILED = _c(XG + "xgboostjob_controller.go", 391,
                 "a failed replica: restarting under ExitCode, else the job fails",
                 "if spec.RestartPolicy == kubeflowv1.RestartPolicyExitCode {")

# PaddleJob
PD = P + "paddlepaddle/"
C_PD_COLLECTIVE = _c(PD + "envvar.go", 75, "no Master: collective mode, worker 0 is the endpoint",
                     "PaddleReplicaSpecs[kubeflowv1.PaddleJobReplicaTypeMaster] == nil")
C_PD_ENV = _c(PD + "envvar.go", 66, "PADDLE_JOB_ID and PADDLE_NNODES in every container",
              "Name:  EnvJobID,")
C_PD_PODIP = _c(PD + "envvar.go", 80, "rank 0 advertises its own pod IP", "if rank == 0 {")
C_PD_PS_PODIP = _c(PD + "envvar.go", 107, "PS mode: master 0 advertises its own pod IP",
                   "if rank == 0 && rtype == strings.ToLower(")
C_PD_SERVER = _c(PD + "envvar.go", 130, "PS mode: PADDLE_SERVER_NUM on masters",
                 "Name:  EnvServerNum,")
C_PD_TRAINER = _c(PD + "envvar.go", 135, "PS mode: PADDLE_TRAINER_NUM on workers",
                  "Name:  EnvTrainerNum,")
C_PD_PORT = _c(PD + "envvar.go", 171, "a replica without the master port uses 36543",
               "return kubeflowv1.PaddleJobDefaultPort")
C_PD_SUCCESS = _c(PD + "paddlepaddle_controller.go", 392,
                  "with a Master: the job succeeds when the Master succeeds", "if expected == 0 {")
C_PD_SUCCESS_W = _c(PD + "paddlepaddle_controller.go", 408,
                    "without a Master: when all Workers succeed", "if expected == 0 {")
C_PD_FAILED = _c(PD + "paddlepaddle_controller.go", 427,
                 "a failed replica restarts the job unless its policy is Never",
                 "if failed > 0 && (specReplicas > succeeded+running) {")

# JAXJob
JX = P + "jax/"
C_JX_ENV = _c(JX + "envvar.go", 61, "COORDINATOR_PORT/ADDRESS, NUM_PROCESSES, PROCESS_ID",
              'Name:  "COORDINATOR_PORT",')
C_JX_SUCCESS = _c(JX + "jaxjob_controller.go", 372, "the job succeeds when all Workers succeed",
                  "if expected == 0 {")
C_JX_FAILED = _c(JX + "jaxjob_controller.go", 390,
                 "a failed replica restarts the job unless its policy is Never",
                 "if failed > 0 && (specReplicas > succeeded+running) {")
C_JX_ROLE = _c(JX + "jaxjob_controller.go", 464, "worker 0 carries job-role=master",
               "return index == 0")

# webhooks
C_WH_PT_MASTER = _c(W + "pytorch/pytorchjob_webhook.go", 154, "Master replicas must be 1",
                    '"must be 1"')
C_WH_PT_WORKERS = _c(W + "pytorch/pytorchjob_webhook.go", 157, "Worker replicas at least 1",
                     '"must be at least 1"')
C_WH_PT_ELASTIC = _c(W + "pytorch/pytorchjob_webhook.go", 100, "elastic needs a Worker",
                     '"must be configured if elastic policy is used"')
C_WH_PT_NPROC = _c(W + "pytorch/pytorchjob_webhook.go", 107,
                   "elasticPolicy.nProcPerNode and nprocPerNode exclude each other",
                   "field.Forbidden(elasticNProcPerNodePath")
C_WH_TF_CHIEF = _c(W + "tensorflow/tfjob_webhook.go", 123, "at most one Chief or Master",
                   "if chiefOrMaster > 1 {")
C_WH_XG_MASTER = _c(W + "xgboost/xgboostjob_webhook.go", 131, "Master replicas must be 1",
                    "if rSpec.Replicas == nil || int(*rSpec.Replicas) != 1 {")
C_WH_XG_MASTER_REQ = _c(W + "xgboost/xgboostjob_webhook.go", 136, "a Master is required",
                        "if !masterExists {")



@dataclass(frozen=True)
class Hook:
    """Where a kind's validating webhook checks the name, the specs, images, types and the
    framework container (``types`` None: any replica type is admitted)."""

    name: Citation
    required: Citation
    image: Citation
    container: Citation
    types: Citation | None


def _hook(file: str, lines: tuple[int, int, int, int, int | None], container: str) -> Hook:
    path = W + file
    name, required, image, named, types = lines
    return Hook(
        _c(path, name, "the job name must be a DNS-1035 label", "NameIsDNS1035Label"),
        _c(path, required, "the replica specs are required", '"must be required"'),
        _c(path, image, "every container needs an image", 'if container.Image == "" {'),
        _c(path, named, f"a container named {container} is required",
           "if !defaultContainerPresent {"),
        None if types is None else _c(path, types, "only the kind's replica types",
                                      "if !slices.Contains(valid"))


@dataclass(frozen=True)
class Kind:
    """What differs between the kinds training-operator serves."""

    kind: str
    field: str  # the replica specs' field under spec
    container: str  # the framework container's name
    port_name: str
    port: int
    restart: str  # the default replica restart policy
    types: tuple[str, ...]  # canonical replica types, in creation order
    controller: str  # the operator-name label's value
    defaults: tuple[Citation, ...]  # where the port and restart defaults are declared
    hook: Hook  # the validating webhook's checks


KINDS: dict[str, Kind] = {
    "PyTorchJob": Kind(
        "PyTorchJob", "pytorchReplicaSpecs", "pytorch", "pytorchjob-port", 23456, "OnFailure",
        ("Master", "Worker"), "pytorchjob-controller",
        (_c(A + "pytorch_types.go", 29, "default port 23456", "PyTorchJobDefaultPort = 23456"),
         _c(A + "pytorch_types.go", 31, "default restart OnFailure",
            "PyTorchJobDefaultRestartPolicy = RestartPolicyOnFailure")),
        _hook("pytorch/pytorchjob_webhook.go", (80, 119, 141, 149, 130), "pytorch")),
    "TFJob": Kind(
        "TFJob", "tfReplicaSpecs", "tensorflow", "tfjob-port", 2222, "Never",
        ("Chief", "Master", "PS", "Worker", "Evaluator"), "tfjob-controller",
        (_c(A + "tensorflow_types.go", 28, "default port 2222", "TFJobDefaultPort = 2222"),
         _c(A + "tensorflow_types.go", 30, "default restart Never",
            "TFJobDefaultRestartPolicy = RestartPolicyNever")),
        _hook("tensorflow/tfjob_webhook.go", (75, 94, 111, 119, None), "tensorflow")),
    "XGBoostJob": Kind(
        "XGBoostJob", "xgbReplicaSpecs", "xgboost", "xgboostjob-port", 9999, "Never",
        ("Master", "Worker"), "xgboostjob-controller",
        (_c(A + "xgboost_types.go", 30, "default port 9999", "XGBoostJobDefaultPort = 9999"),
         _c(A + "xgboost_types.go", 32, "default restart Never",
            "XGBoostJobDefaultRestartPolicy = RestartPolicyNever")),
        _hook("xgboost/xgboostjob_webhook.go", (76, 95, 118, 126, 107), "xgboost")),
    "PaddleJob": Kind(
        "PaddleJob", "paddleReplicaSpecs", "paddle", "master", 36543, "OnFailure",
        ("Master", "Worker"), "paddlejob-controller",
        (_c(A + "paddlepaddle_types.go", 29, "default port 36543",
            "PaddleJobDefaultPort = 36543"),
         _c(A + "paddlepaddle_types.go", 31, "default restart OnFailure",
            "PaddleJobDefaultRestartPolicy = RestartPolicyOnFailure")),
        _hook("paddlepaddle/paddlepaddle_webhook.go", (76, 91, 113, 121, 102), "paddle")),
    "JAXJob": Kind(
        "JAXJob", "jaxReplicaSpecs", "jax", "jaxjob-port", 6666, "Never", ("Worker",),
        "jaxjob-controller",
        (_c(A + "jax_types.go", 27, "default port 6666", "JAXJobDefaultPort = 6666"),
         _c(A + "jax_types.go", 29, "default restart Never",
            "JAXJobDefaultRestartPolicy = RestartPolicyNever")),
        _hook("jax/jaxjob_webhook.go", (74, 90, 111, 119, 100), "jax")),
}


@dataclass
class Replica:
    """One replica type after defaulting."""

    rtype: str  # canonical, e.g. "Master"
    replicas: int
    restart: str  # replica-level policy: Always, OnFailure, Never or ExitCode
    template: dict[str, Any]  # plain copy, default port added

    @property
    def rt(self) -> str:
        return self.rtype.lower()

    @property
    def pod_restart(self) -> str:
        return "Never" if self.restart == "ExitCode" else self.restart


@dataclass
class Job:
    """A training-operator job after admission and defaulting."""

    kind: Kind
    name: str
    namespace: str
    spec: Mapping[str, Any]
    run_policy: Mapping[str, Any]
    replicas: dict[str, Replica]
    citations: list[Citation] = field(default_factory=list)

    def has(self, rtype: str) -> bool:
        return rtype in self.replicas

    def count(self, rtype: str) -> int:
        replica = self.replicas.get(rtype)
        return replica.replicas if replica else 0

    @property
    def total(self) -> int:
        return sum(replica.replicas for replica in self.replicas.values())

    @property
    def backoff_limit(self) -> int | None:
        return as_int(self.run_policy.get("backoffLimit"))

    def port(self, rtype: str) -> int | None:
        """The containerPort named after the kind's port on the framework container of
        ``rtype`` (``getPortFrom<Kind>Job``), None when none is."""
        replica = self.replicas.get(rtype)
        if replica is None:
            return None
        for container in containers(as_map(replica.template.get("spec"))):
            if container.get("name") != self.kind.container:
                continue
            for port in as_list(container.get("ports")):
                if isinstance(port, Mapping) and port.get("name") == self.kind.port_name:
                    value = as_int(port.get("containerPort"))
                    if value is not None:
                        return value
        return None


# --- admission and defaulting ----------------------------------------------------------------


def metadata(job: Mapping[str, Any]) -> tuple[str, str]:
    meta = as_map(job.get("metadata"))
    name = as_str(meta.get("name"))
    if not name:
        raise Rejected(["metadata.name is missing: the API server refuses the object"])
    namespace = as_str(meta.get("namespace")) or "default"
    return name, namespace


def _dns1035(name: str) -> bool:
    if not 0 < len(name) <= 63 or not name[0].isalpha() or not name[0].islower():
        return False
    if name[-1] == "-":
        return False
    return all(ch.islower() or ch.isdigit() or ch == "-" for ch in name if ch.isascii()) and \
        name.isascii()


def _admit(kind: Kind, name: str, spec: Mapping[str, Any]) -> None:
    """The validating webhook of v1.9.2 (before any defaulting: type names are exact)."""
    reasons: list[str] = []
    cites: list[Citation] = []
    hook = kind.hook

    def no(reason: str, citation: Citation) -> None:
        reasons.append(reason)
        cites.append(citation)

    if not _dns1035(name):
        no(f"metadata.name {name!r} is not a DNS-1035 label", hook.name)
    manager = as_str(as_map(spec.get("runPolicy")).get("managedBy"))
    if manager is not None and manager not in ("kubeflow.org/training-operator",
                                               "kueue.x-k8s.io/multikueue"):
        no(f"runPolicy.managedBy {manager!r} is not supported", C_MANAGED_OK)
    if not isinstance(spec.get(kind.field), Mapping):
        no(f"spec.{kind.field} is required", hook.required)
    raw = {str(key): value for key, value in as_map(spec.get(kind.field)).items()}
    chiefs = 0
    for rtype, value in raw.items():
        rspec = as_map(value)
        items = containers(as_map(as_map(rspec.get("template")).get("spec")))
        if hook.types is not None and rtype not in kind.types:
            no(f"replica type {rtype!r} is not one of {', '.join(kind.types)}", hook.types)
        if kind.kind == "TFJob" and rtype in ("Chief", "Master"):
            chiefs += 1
        if any(not as_str(item.get("image")) for item in items):
            no(f"{rtype}: every container needs an image", hook.image)
        if not any(item.get("name") == kind.container for item in items):
            no(f"{rtype}: no container named {kind.container!r}", hook.container)
        replicas = as_int(rspec.get("replicas"))
        if kind.kind == "PyTorchJob":
            if rtype == "Master" and replicas != 1:
                no("Master replicas must be 1 (and set)", C_WH_PT_MASTER)
            elif rtype != "Master" and replicas is not None and replicas < 1:
                no(f"{rtype} replicas must be at least 1", C_WH_PT_WORKERS)
        if kind.kind == "XGBoostJob" and rtype == "Master" and replicas != 1:
            no("Master replicas must be 1 (and set)", C_WH_XG_MASTER)
    if kind.kind == "TFJob" and chiefs > 1:
        no("at most one Chief or Master", C_WH_TF_CHIEF)
    if kind.kind == "XGBoostJob" and "Master" not in raw:
        no("a Master replica is required", C_WH_XG_MASTER_REQ)
    if kind.kind == "PyTorchJob" and spec.get("elasticPolicy") is not None:
        elastic = as_map(spec.get("elasticPolicy"))
        if "Worker" not in raw:
            no("elasticPolicy needs a Worker replica", C_WH_PT_ELASTIC)
        if elastic.get("nProcPerNode") is not None and spec.get("nprocPerNode") is not None:
            no("elasticPolicy.nProcPerNode and nprocPerNode are both set", C_WH_PT_NPROC)
    if reasons:
        raise Rejected([f"the {kind.kind} webhook refuses the job: {reason}"
                        for reason in reasons], cites)


def parse(job: Mapping[str, Any], kind: Kind) -> Job:
    """Admit (webhook) and default a job of ``kind``."""
    name, namespace = metadata(job)
    spec = as_map(job.get("spec"))
    _admit(kind, name, spec)
    raw = {str(key): value for key, value in as_map(spec.get(kind.field)).items()}
    out = Job(kind, name, namespace, spec, as_map(spec.get("runPolicy")), {})
    out.citations.extend((C_CAMEL, C_REPLICAS, C_RESTART_DEFAULT, *kind.defaults))
    for key, value in raw.items():
        rtype = next((t for t in kind.types if t.lower() == key.lower()), key)
        rspec = as_map(value)
        replicas = as_int(rspec.get("replicas"))
        restart = as_str(rspec.get("restartPolicy")) or kind.restart
        if restart not in RESTART_POLICIES:
            raise Rejected([f"{rtype}: restartPolicy {restart!r} is not one of "
                            f"{', '.join(RESTART_POLICIES)}: the pods it would create are "
                            "refused by the API server"], [C_RESTART_POD])
        template = plain(as_map(rspec.get("template")))
        _default_port(template, kind)
        out.replicas[rtype] = Replica(rtype, 1 if replicas is None else max(replicas, 0),
                                      restart, template)
    count(out.total, f"{kind.kind} {name}")
    return out


def _default_port(template: dict[str, Any], kind: Kind) -> None:
    """``set<Kind>DefaultPort``: the port on the framework container, else container 0."""
    spec = template.get("spec")
    if not isinstance(spec, dict):
        return
    items = containers(spec)
    if not items:
        return
    target = next((item for item in items if item.get("name") == kind.container), items[0])
    ports = target.get("ports")
    if not isinstance(ports, list):
        ports = []
        target["ports"] = ports
    if not any(isinstance(p, Mapping) and p.get("name") == kind.port_name for p in ports):
        ports.append({"name": kind.port_name, "containerPort": kind.port})


# --- the pods --------------------------------------------------------------------------------


def identity(job: Job, rtype: str, index: int) -> str:
    """The side-neutral name of a pod (model.py's conventions)."""
    kind = job.kind.kind
    if kind in ("PyTorchJob", "XGBoostJob"):
        if rtype == "Master":
            return f"node-{index}"
        if rtype == "Worker":
            return f"node-{index + job.count('Master')}"
    if kind == "PaddleJob":
        if rtype == "Master":
            return f"ps-{index}"
        if rtype == "Worker":
            return f"node-{index}"
    if kind == "TFJob":
        # the chief (or master) leads the worker group, as PyTorch's Master does
        lead = next((role for role in ("Chief", "Master") if job.has(role)), None)
        if rtype == lead:
            return f"node-{index}"
        if rtype == "Worker":
            return f"node-{index + (job.count(lead) if lead else 0)}"
    if kind == "JAXJob" and rtype == "Worker":
        return f"node-{index}"
    return f"{rtype.lower()}-{index}"


def master_role(job: Job, rtype: str, index: int) -> bool:
    kind = job.kind.kind
    if kind == "PyTorchJob":
        return rtype == "Master" if job.has("Master") else rtype == "Worker" and index == 0
    if kind == "TFJob":
        if job.has("Chief") or job.has("Master"):
            return rtype in ("Chief", "Master")
        return rtype == "Worker" and index == 0
    if kind in ("XGBoostJob", "PaddleJob"):
        return rtype == "Master"
    return index == 0  # JAXJob


def env_entry(name: str, value: str) -> dict[str, Any]:
    return {"name": name, "value": value}


def _append_env(container: dict[str, Any], entries: list[dict[str, Any]]) -> None:
    env = container.get("env")
    if not isinstance(env, list):
        env = []
        container["env"] = env
    env.extend(entries)


def _name(job: Job, rtype: str, index: int) -> str:
    return f"{job.name}-{rtype.lower()}-{index}".replace("/", "-")


def _pytorch_env(job: Job, rtype: str, index: int, cites: list[Citation]) -> list[dict[str, Any]]:
    spec = job.spec
    nproc = spec.get("nprocPerNode")
    elastic = spec.get("elasticPolicy")
    elastic_map = as_map(elastic)
    if nproc is None and (elastic is None or elastic_map.get("nProcPerNode") is None):
        nproc = "auto"
        cites.append(C_PT_NPROC_DEFAULT)
    nproc_str = nproc if isinstance(nproc, str) else (str(nproc) if as_int(nproc) is not None
                                                      else None)
    digits = nproc_str is not None and nproc_str.lstrip("-").isdigit() and len(nproc_str) < 11
    nproc_int = int(nproc_str) if digits and nproc_str is not None else 1  # Atoi, else 1
    total = job.total
    out = [env_entry("PYTHONUNBUFFERED", "1")]
    cites.append(C_PT_UNBUFFERED)
    if job.has("Master"):
        port = job.port("Master")
        if port is None:
            raise Rejected(["PyTorchJob: the Master's pytorch container has no pytorchjob-port "
                            "port: SetClusterSpec fails and no pod is created"], [C_PT_MASTER_PORT])
        addr = _name(job, "Master", 0)
        rank = index + 1 if rtype == "Worker" else index
        out += [env_entry("MASTER_PORT", str(port)), env_entry("PET_MASTER_PORT", str(port)),
                env_entry("MASTER_ADDR", addr), env_entry("PET_MASTER_ADDR", addr),
                env_entry("WORLD_SIZE", str(total * nproc_int)), env_entry("RANK", str(rank)),
                env_entry("PET_NODE_RANK", str(rank))]
        cites += [C_PT_MASTER_PORT, C_PT_MASTER_ADDR, C_PT_WORLD, C_PT_NPROC_INT, C_PT_RANK,
                  C_PT_RANK_ENV]
    if nproc_str is not None:
        out.append(env_entry("PET_NPROC_PER_NODE", nproc_str))
        cites.append(C_PT_NPROC)
    if elastic is not None:
        out += _elastic_env(job, elastic_map, cites)
    else:
        out.append(env_entry("PET_NNODES", str(total)))
        cites.append(C_PT_NNODES)
    return out


def _elastic_env(job: Job, elastic: Mapping[str, Any],
                 cites: list[Citation]) -> list[dict[str, Any]]:
    host = as_str(elastic.get("rdzvHost"))
    if host is None:
        host = f"{job.name}-worker-0"
        cites.append(C_PT_ELASTIC_HOST)
    port = as_int(elastic.get("rdzvPort"))
    if port is None:
        port = job.port("Worker")
        cites.append(C_PT_ELASTIC_PORT)
        if port is None:
            raise Rejected(["PyTorchJob: elastic without rdzvPort and no Worker pytorchjob-port: "
                            "SetClusterSpec fails and no pod is created"], [C_PT_ELASTIC_PORT])
    out = [env_entry("PET_RDZV_ENDPOINT", f"{host}:{port}"),
           env_entry("PET_RDZV_BACKEND", as_str(elastic.get("rdzvBackend")) or "c10d")]
    cites.append(C_PT_ELASTIC_BACKEND)
    low, high = as_int(elastic.get("minReplicas")), as_int(elastic.get("maxReplicas"))
    if low is None and high is None:
        workers = job.count("Worker")
        low = high = workers
        cites.append(C_PT_ELASTIC_WORKERS)
    elif low is None:
        low = high
        cites.append(C_PT_ELASTIC_MINMAX)
    elif high is None:
        high = low
        cites.append(C_PT_ELASTIC_MINMAX)
    out.append(env_entry("PET_NNODES", f"{low}:{high}"))
    cites.append(C_PT_ELASTIC_NNODES)
    if (restarts := as_int(elastic.get("maxRestarts"))) is not None:
        out.append(env_entry("PET_MAX_RESTARTS", str(restarts)))
    if (nproc := as_int(elastic.get("nProcPerNode"))) is not None:
        out.append(env_entry("PET_NPROC_PER_NODE", str(nproc)))
    if (rdzv_id := as_str(elastic.get("rdzvId"))) is not None:
        out.append(env_entry("PET_RDZV_ID", rdzv_id))
    conf = [as_map(item) for item in as_list(elastic.get("rdzvConf"))]
    if elastic.get("rdzvConf") is not None and conf:
        out.append(env_entry("PET_RDZV_CONF", ",".join(
            f"{as_str(item.get('key')) or ''}={as_str(item.get('value')) or ''}" for item in conf)))
    if as_bool(elastic.get("standalone")):
        out.append(env_entry("PET_STANDALONE", ""))
    return out


def _tf_config(job: Job, rtype: str, index: int, cites: list[Citation]) -> str:
    cluster: dict[str, list[str]] = {}
    for replica in job.replicas.values():
        port = job.port(replica.rtype)
        if port is None:
            port = job.kind.port
            cites.append(C_TF_PORT)
        cluster[replica.rt] = [f"{_name(job, replica.rtype, i)}.{job.namespace}.svc:{port}"
                               for i in range(replica.replicas)]
    cites.append(C_TF_CLUSTER)
    task = {"type": rtype.lower(), "index": index}
    if as_bool(job.spec.get("enableDynamicWorker")):
        cites.append(C_TF_SPARSE)
        rt = rtype.lower()
        sparse: dict[str, Any] = {"worker": {}, "ps": []}
        if rt == "ps":
            sparse["ps"] = cluster.get("ps", [])[index:index + 1]
        elif rt == "worker":
            sparse["ps"] = cluster.get("ps")  # a missing type is a nil slice: JSON null
            workers = cluster.get("worker", [])
            if index < len(workers):
                sparse["worker"] = {str(index): workers[index]}
        return json.dumps({"cluster": sparse, "task": task}, separators=(",", ":"))
    cites.append(C_TF_ENV_CLOUD)
    return json.dumps({"cluster": dict(sorted(cluster.items())), "task": task,
                       "environment": "cloud"}, separators=(",", ":"))


def _xgboost_env(job: Job, rtype: str, index: int, cites: list[Citation]) -> list[dict[str, Any]]:
    rank = index + job.count("Master") if rtype == "Worker" else index
    master_port = job.port("Master")
    if master_port is None:
        raise Rejected(["XGBoostJob: the Master's xgboost container has no xgboostjob-port "
                        "port: SetClusterSpec fails and no pod is created"], [C_XG_ENV])
    total = job.total
    out = [env_entry("MASTER_PORT", str(master_port)),
           env_entry("MASTER_ADDR", _name(job, "Master", 0)),
           env_entry("WORLD_SIZE", str(total)), env_entry("RANK", str(rank)),
           env_entry("PYTHONUNBUFFERED", "1")]
    cites += [C_XG_ENV, C_XG_RANK]
    if total > 1:
        worker_port = job.port("Worker")
        if worker_port is None:
            raise Rejected(["XGBoostJob: more than one replica but no Worker xgboostjob-port "
                            "port: SetClusterSpec fails and no pod is created"], [C_XG_WORKERS])
        out += [env_entry("WORKER_PORT", str(worker_port)),
                env_entry("WORKER_ADDRS", ",".join(_name(job, "Worker", i)
                                                   for i in range(total - 1)))]
        cites.append(C_XG_WORKERS)
    return out


def _paddle_env(job: Job, rtype: str, index: int, cites: list[Citation]) -> list[dict[str, Any]]:
    def port(of: str) -> int:
        value = job.port(of)
        if value is None:
            cites.append(C_PD_PORT)
            return job.kind.port
        return value

    out = [env_entry("PYTHONUNBUFFERED", "1"), env_entry("PADDLE_JOB_ID", job.name),
           env_entry("PADDLE_NNODES", str(job.total))]
    cites.append(C_PD_ENV)
    pod_ip = {"name": "POD_IP_DUMMY", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}}
    if not job.has("Master"):
        cites.append(C_PD_COLLECTIVE)
        endpoint_port = port("Worker")
        if index == 0:
            cites.append(C_PD_PODIP)
            out += [pod_ip, env_entry("PADDLE_MASTER", f"$(POD_IP_DUMMY):{endpoint_port}")]
        else:
            out.append(env_entry("PADDLE_MASTER",
                                 f"{_name(job, 'Worker', 0)}:{endpoint_port}"))
        return out
    endpoint_port = port("Master")
    if index == 0 and rtype == "Master":
        cites.append(C_PD_PS_PODIP)
        out += [pod_ip, env_entry("PADDLE_MASTER", f"$(POD_IP_DUMMY):{endpoint_port}")]
    else:
        out.append(env_entry("PADDLE_MASTER", f"{_name(job, 'Master', 0)}:{endpoint_port}"))
    if rtype == "Master":
        out.append(env_entry("PADDLE_SERVER_NUM", "1"))
        cites.append(C_PD_SERVER)
    else:
        out.append(env_entry("PADDLE_TRAINER_NUM", "1"))
        cites.append(C_PD_TRAINER)
    return out


def _jax_env(job: Job, rtype: str, index: int, cites: list[Citation]) -> list[dict[str, Any]]:
    port = job.port("Worker")
    if port is None:
        raise Rejected(["JAXJob: no Worker jax container with a jaxjob-port port: "
                        "SetClusterSpec fails and no pod is created"], [C_JX_ENV])
    cites.append(C_JX_ENV)
    return [env_entry("PYTHONUNBUFFERED", "1"), env_entry("COORDINATOR_PORT", str(port)),
            env_entry("COORDINATOR_ADDRESS", _name(job, "Worker", 0)),
            env_entry("NUM_PROCESSES", str(job.total)), env_entry("PROCESS_ID", str(index))]


def _cluster_spec(job: Job, rtype: str, index: int, spec: dict[str, Any],
                  cites: list[Citation]) -> None:
    """The kind's ``SetClusterSpec`` on a pod spec."""
    kind = job.kind.kind
    items = containers(spec)
    if kind == "TFJob":
        distributed = sum(replica.replicas for replica in job.replicas.values()
                          if replica.rtype in KINDS["TFJob"].types) != 1
        if not distributed:
            cites.append(C_TF_LOCAL)
            return
        config = _tf_config(job, rtype, index, cites)
        cites.append(C_TF_ONLY)
        target = next((item for item in items if item.get("name") == "tensorflow"), None)
        if target is not None:
            _append_env(target, [env_entry("TF_CONFIG", config)])
        return
    makers: dict[str, Callable[[Job, str, int, list[Citation]], list[dict[str, Any]]]] = {
        "PyTorchJob": _pytorch_env, "XGBoostJob": _xgboost_env, "PaddleJob": _paddle_env,
        "JAXJob": _jax_env}
    entries = makers[kind](job, rtype, index, cites)
    for item in items:
        _append_env(item, [dict(entry) for entry in entries])
    if kind == "PyTorchJob" and job.has("Master") and rtype == "Worker":
        master = _name(job, "Master", 0)
        init = spec.get("initContainers")
        if not isinstance(init, list):
            init = []
            spec["initContainers"] = init
        init.append({
            "name": "init-pytorch", "image": INIT_IMAGE, "imagePullPolicy": "IfNotPresent",
            "resources": {"limits": {"cpu": "100m", "memory": "20Mi"},
                          "requests": {"cpu": "50m", "memory": "10Mi"}},
            "command": ["sh", "-c",
                        f"err=1;for i in $(seq {INIT_TRIES}); do if nslookup {master}; then "
                        "err=0 && break; fi;echo waiting for master; sleep 2; done; exit $err"]})
        cites += [C_PT_INIT, C_PT_INIT_TEMPLATE, C_PT_INIT_IMAGE]


def gang(gang_scheduler: str | None) -> tuple[str, bool] | None:
    """(scheduler name, is Volcano) of the operator's gang scheduler, None without one."""
    if not isinstance(gang_scheduler, str) or gang_scheduler in ("", "None"):
        return None
    return gang_scheduler, gang_scheduler == "volcano"


def decorate(template: dict[str, Any], job_name: str, rt: str, scheduler: tuple[str, bool],
             cites: list[Citation]) -> None:
    """``DecoratePodTemplateSpec`` of training-operator: a scheduler name only when the
    template has none; Volcano's group annotations or scheduler-plugins' pod-group label."""
    spec = template.setdefault("spec", {})
    if isinstance(spec, dict) and not as_str(spec.get("schedulerName")):
        spec["schedulerName"] = scheduler[0]
    meta = template.setdefault("metadata", {})
    if not isinstance(meta, dict):
        return
    if scheduler[1]:
        annotations = meta.setdefault("annotations", {})
        if isinstance(annotations, dict):
            annotations["scheduling.k8s.io/group-name"] = job_name
            annotations["volcano.sh/task-spec"] = rt
        cites += [C_GANG_DECORATE, C_VOLCANO_NAME]
    else:
        labels = meta.setdefault("labels", {})
        if isinstance(labels, dict):
            labels["scheduling.x-k8s.io/pod-group"] = job_name
        cites += [C_GANG_DECORATE, C_PLUGINS_NAME]


def _labels(template: Mapping[str, Any]) -> dict[str, str]:
    meta = as_map(template.get("metadata"))
    return {str(k): v if isinstance(v, str) else str(v)
            for k, v in as_map(meta.get("labels")).items()}


def build(job: Job, gang_scheduler: str | None) -> World:
    """The world training-operator creates for an admitted job."""
    cites = list(job.citations)
    extras: dict[str, Any] = {
        "kind": job.kind.kind,
        "replicas": {r.rtype: {"replicas": r.replicas, "restartPolicy": r.restart}
                     for r in job.replicas.values()},
        "runPolicy": plain(job.run_policy),
    }
    manager = as_str(job.run_policy.get("managedBy"))
    if manager is not None and manager != "kubeflow.org/training-operator":
        extras["managedBy"] = manager
        cites.append(C_MANAGED)
        return World("legacy", CONTROLLER, (), extras, tuple(dict.fromkeys(cites)))
    if as_bool(job.run_policy.get("suspend")):
        extras["suspended"] = True
        cites.append(C_SUSPEND)
        return World("legacy", CONTROLLER, (), extras, tuple(dict.fromkeys(cites)))
    scheduler = gang(gang_scheduler)
    if scheduler is not None:
        policy = as_map(job.run_policy.get("schedulingPolicy"))
        minimum = as_int(policy.get("minAvailable"))
        group: dict[str, Any] = {
            "kind": "volcano" if scheduler[1] else "scheduler-plugins",
            "name": job.name, "minMember": job.total if minimum is None else minimum}
        if scheduler[1]:
            group["queue"] = as_str(policy.get("queue")) or "default"
            group["priorityClassName"] = as_str(policy.get("priorityClass")) or ""
        else:
            group["scheduleTimeoutSeconds"] = as_int(policy.get("scheduleTimeoutSeconds"))
        extras["podGroup"] = group
        cites += [C_GANG_ON, C_PG_MIN, C_PG_QUEUE, C_PG_POLICY]
        cites += [C_PG_MIN_SET] if minimum is not None else []
    too_long = [_name(job, r.rtype, r.replicas - 1) for r in job.replicas.values()
                if r.replicas and not _dns1035(_name(job, r.rtype, r.replicas - 1))]
    if too_long:
        raise Rejected([f"service {name!r} is not a DNS-1035 label (63 characters at most): the "
                        "API server refuses it and the reconcile stops with an error, pods of "
                        "other replica types possibly never created" for name in too_long],
                       [C_SERVICE])
    pods: list[Pod] = []
    services: list[str] = []
    service_specs: list[dict[str, Any]] = []
    for rtype in [*job.kind.types, *sorted(set(job.replicas) - set(job.kind.types))]:
        replica = job.replicas.get(rtype)
        if replica is None:
            continue
        ports = _service_ports(job, replica)
        for index in range(replica.replicas):
            pods.append(_pod(job, replica, index, scheduler, cites))
            services.append(_name(job, rtype, index))
            service_specs.append({
                "name": _name(job, rtype, index), "clusterIP": "None", "ports": ports,
                "selector": {GROUP_LABEL + "operator-name": job.kind.controller,
                             GROUP_LABEL + "job-name": job.name.replace("/", "-"),
                             GROUP_LABEL + "replica-type": replica.rt,
                             GROUP_LABEL + "replica-index": str(index)}})
    extras["services"] = services
    extras["serviceSpecs"] = service_specs
    cites.append(C_SERVICE_PORTS)
    elastic = job.spec.get("elasticPolicy")
    if job.kind.kind == "PyTorchJob" and isinstance(elastic, Mapping) \
            and elastic.get("metrics") is not None:
        low, high = as_int(elastic.get("minReplicas")), as_int(elastic.get("maxReplicas"))
        workers = job.count("Worker")
        low = low if low is not None else (high if high is not None else workers)
        high = high if high is not None else low
        extras["hpa"] = {"name": job.name, "minReplicas": low, "maxReplicas": high,
                         "metrics": plain(elastic.get("metrics"))}
        cites += [C_HPA, C_HPA_SPEC, C_PT_ELASTIC_MINMAX]
    cites += [C_POD_NAME, C_SERVICE, C_HEADLESS, C_LABELS, C_CLUSTER_SPEC, C_RESTART_POD]
    ordered = tuple(sorted(pods, key=lambda pod: _order(pod.identity)))
    return World("legacy", CONTROLLER, ordered, extras, tuple(dict.fromkeys(cites)))


def _service_ports(job: Job, replica: Replica) -> list[dict[str, Any]]:
    """``GetPortsFromJob``: every named port of the framework container."""
    for item in containers(as_map(replica.template.get("spec"))):
        if item.get("name") == job.kind.container:
            ports = {}
            for port in as_list(item.get("ports")):
                if isinstance(port, Mapping) and as_int(port.get("containerPort")) is not None:
                    ports[str(port.get("name", ""))] = as_int(port.get("containerPort"))
            return [{"name": name, "port": value} for name, value in sorted(ports.items())]
    return []


def _order(identity: str) -> tuple[str, int]:
    role, _, index = identity.rpartition("-")
    return (role, int(index)) if index.isdigit() else (identity, -1)


def _pod(job: Job, replica: Replica, index: int, scheduler: tuple[str, bool] | None,
         cites: list[Citation]) -> Pod:
    template = plain(replica.template)
    if not isinstance(template.get("spec"), dict):
        template["spec"] = {}
    spec: dict[str, Any] = template["spec"]
    labels = _labels(template)
    labels.update({GROUP_LABEL + "operator-name": job.kind.controller,
                   GROUP_LABEL + "job-name": job.name.replace("/", "-"),
                   GROUP_LABEL + "replica-type": replica.rt,
                   GROUP_LABEL + "replica-index": str(index)})
    if master_role(job, replica.rtype, index):
        labels[GROUP_LABEL + "job-role"] = "master"
        cites.append(C_ROLE)
    _cluster_spec(job, replica.rtype, index, spec, cites)
    spec["restartPolicy"] = replica.pod_restart
    if replica.restart == "ExitCode":
        cites.append(C_EXITCODE_NEVER)
    if scheduler is not None:
        meta = template.setdefault("metadata", {})
        if isinstance(meta, dict):
            meta["labels"] = labels
        decorate(template, job.name, replica.rt, scheduler, cites)
        labels = _labels(template)
    name = _name(job, replica.rtype, index)
    return Pod(identity(job, replica.rtype, index), replica.rt, index, name, labels, spec,
               (name,))


# --- the reconcile loop ----------------------------------------------------------------------


def reactor(job: Job) -> Callable[[Run, Event], Reacted]:
    """How training-operator reacts to one occurrence of an event (see the module docstring)."""

    def replica_of(run: Run, identity_: str) -> Replica:
        pod = run.world.pod(identity_)
        assert pod is not None  # play() only reacts for pods of the world
        return next(r for r in job.replicas.values() if r.rt == pod.group)

    def counted(run: Run) -> Callable[[str], bool]:
        def keep(identity_: str) -> bool:
            return replica_of(run, identity_).restart in ("OnFailure", "Always", "ExitCode")
        return keep

    def react(run: Run, event: Event) -> Reacted:
        state = run.pods[event.identity]
        replica = replica_of(run, event.identity)
        policy = replica.pod_restart
        if event.action == "exit" and (event.code != 0 or policy == "Always") \
                and policy in ("Always", "OnFailure"):
            state.restarts += 1
            return _restarted(job, run, counted(run), event, policy)
        if event.action == "exit" and event.code == 0:
            state.status = "succeeded"
            return success(job, run, event)
        state.status = "failed"
        state.evicted = event.action == "evict"
        code = EVICTED_EXIT_CODE if event.action == "evict" else event.code
        return failure(job, run, replica, event, code)

    return react


def _restarted(job: Job, run: Run, counted: Callable[[str], bool], event: Event,
               policy: str) -> Reacted:
    cause = "exited 0" if event.code == 0 else f"exited {event.code}"
    why = (f"{event.identity} {cause}; pod restartPolicy {policy}: the kubelet restarts the "
           "container in place")
    cites: tuple[Citation, ...] = (C_RESTART_POD,)
    limit = job.backoff_limit
    if limit is None:
        return Reacted("restarted", "Running", why + "; no backoffLimit: restarts are not counted",
                       cites)
    total = run.restarts_where(counted)
    cites += (C_PAST_BACKOFF, C_BACKOFF_TYPES, C_BACKOFF_RUNNING)
    if (limit == 0 and total > 0) or (limit > 0 and total >= limit):
        cites += (C_BACKOFF_ZERO if limit == 0 else C_BACKOFF_SUM,)
        return Reacted("restarted", "Failed",
                       why + f"; the running pods' restarts ({total}) reach backoffLimit "
                       f"{limit}: the operator deletes every pod and fails the job", cites,
                       cleaned=True)
    return Reacted("restarted", "Running",
                   why + f"; restarts of running pods {total} < backoffLimit {limit}", cites)


def cleanup(run_policy: Mapping[str, Any]) -> Cleanup:
    """``CleanUpResources`` of a finished job under its cleanPodPolicy (default None)."""
    policy = as_str(run_policy.get("cleanPodPolicy")) or "None"

    def clean(run: Run, phase: Phase) -> tuple[str, tuple[Citation, ...]]:
        if policy == "All":
            return ("cleanPodPolicy All: the operator deletes every pod and its service",
                    (C_CLEAN,))
        if policy == "Running":
            running = sorted(i for i, state in run.pods.items() if state.status == "running")
            return (f"cleanPodPolicy Running: the operator deletes the running pods "
                    f"({', '.join(running) or 'none'}) and their services; finished ones stay",
                    (C_CLEAN, C_CLEAN_RUNNING))
        return ("cleanPodPolicy None: every pod stays as it is (running ones keep running)",
                (C_CLEAN, C_CLEAN_NONE))

    return clean


def success(job: Job, run: Run, event: Event) -> Reacted:
    """A pod succeeded: does the kind's ``UpdateJobStatus`` call the job succeeded?"""
    kind = job.kind.kind

    def done(rtype: str) -> bool:
        replica = job.replicas.get(rtype)
        if replica is None:
            return False
        return all(run.pods[identity(job, rtype, i)].status == "succeeded"
                   for i in range(replica.replicas))

    def any_done(rtype: str) -> bool:
        replica = job.replicas.get(rtype)
        return replica is not None and any(
            run.pods[identity(job, rtype, i)].status == "succeeded"
            for i in range(replica.replicas))

    base = f"{event.identity} exited 0: the pod succeeded"
    if kind == "PyTorchJob":
        if job.has("Master"):
            if done("Master"):
                return Reacted("kept", "Succeeded", base + "; the Master succeeded: the job "
                               "succeeds", (C_PT_SUCCESS_MASTER,))
            return Reacted("kept", "Running", base + "; only the Master's success ends the job",
                           (C_PT_SUCCESS_MASTER,))
        elastic = job.spec.get("elasticPolicy") is not None
        if done("Worker") or (elastic and any_done("Worker")):
            return Reacted("kept", "Succeeded", base + ("; elastic: one Worker's success ends "
                           "the job" if elastic and not done("Worker") else
                           "; every Worker succeeded"), (C_PT_SUCCESS_WORKERS,))
        return Reacted("kept", "Running", base + "; without a Master every Worker must succeed",
                       (C_PT_SUCCESS_WORKERS,))
    if kind == "XGBoostJob":
        if done("Master"):
            return Reacted("kept", "Succeeded", base + "; the Master succeeded: the job succeeds",
                           (C_XG_SUCCESS,))
        return Reacted("kept", "Running", base + "; only the Master's success ends the job",
                       (C_XG_SUCCESS,))
    if kind == "PaddleJob":
        if job.has("Master"):
            if done("Master"):
                return Reacted("kept", "Succeeded", base + "; the Master succeeded",
                               (C_PD_SUCCESS,))
            return Reacted("kept", "Running", base + "; only the Master's success ends the job",
                           (C_PD_SUCCESS,))
        if done("Worker"):
            return Reacted("kept", "Succeeded", base + "; every Worker succeeded",
                           (C_PD_SUCCESS_W,))
        return Reacted("kept", "Running", base + "; every Worker must succeed", (C_PD_SUCCESS_W,))
    if kind == "JAXJob":
        if done("Worker"):
            return Reacted("kept", "Succeeded", base + "; every Worker succeeded",
                           (C_JX_SUCCESS,))
        return Reacted("kept", "Running", base + "; every Worker must succeed", (C_JX_SUCCESS,))
    # TFJob
    for chief in ("Chief", "Master"):
        if job.has(chief):
            if done(chief):
                return Reacted("kept", "Succeeded", base + f"; the {chief} succeeded",
                               (C_TF_CHIEF,))
            return Reacted("kept", "Running", base + f"; only the {chief}'s success ends the job",
                           (C_TF_CHIEF,))
    all_workers = as_str(job.spec.get("successPolicy")) == "AllWorkers"
    worker0 = job.has("Worker") and job.count("Worker") > 0 and \
        run.pods[identity(job, "Worker", 0)].status == "succeeded"
    if done("Worker") or (worker0 and not all_workers):
        return Reacted("kept", "Succeeded", base + ("; every worker succeeded" if done("Worker")
                       else "; worker 0 succeeded (default successPolicy)"), (C_TF_WORKER0,))
    return Reacted("kept", "Running", base + ("; successPolicy AllWorkers: every worker must "
                   "succeed" if all_workers else "; worker 0's success ends the job"),
                   (C_TF_WORKER0,))


def failure(job: Job, run: Run, replica: Replica, event: Event, code: int) -> Reacted:
    """A pod failed (its container exited non-zero under a pod restartPolicy Never, or it was
    evicted): ``ReconcileJobs``, ``ReconcilePods`` and the kind's ``UpdateJobStatus``."""
    kind = job.kind.kind
    state = run.pods[event.identity]
    what = (f"{event.identity} evicted (pod Failed, reason Evicted; exit code taken as "
            f"{EVICTED_EXIT_CODE})" if event.action == "evict"
            else f"{event.identity} exited {code} under pod restartPolicy Never")
    cites: tuple[Citation, ...] = ()
    if event.action == "evict":
        cites += (C_NO_STATE,)
    if job.backoff_limit == 0:
        return Reacted("kept", "Failed", what + "; backoffLimit 0: a new failed pod exceeds it "
                       "(work-queue requeues taken as 0); the operator deletes the pods and "
                       "fails the job", (*cites, C_NEW_FAILURE), cleaned=True)
    retryable = code >= 128
    if replica.restart == "ExitCode" and not retryable:
        return Reacted("kept", "Failed", what + f"; restartPolicy ExitCode and {code} < 128 is "
                       "permanent: the job fails",
                       (*cites, C_PERMANENT, C_RETRYABLE, C_FAILED_STICKY))
    recreate = replica.restart in ("OnFailure", "Always") or replica.restart == "ExitCode"
    if recreate:
        cites += (C_RECREATE,) + ((C_RETRYABLE,) if replica.restart == "ExitCode" else ())
        deleted = what + f"; restartPolicy {replica.restart}: the operator deletes the pod"
        if kind == "XGBoostJob" and replica.restart != "ExitCode":
            return Reacted("kept", "Failed", deleted + "; XGBoostJob's status then fails the "
                           "job (only ExitCode counts a failed replica as restarting): no new "
                           "pod", (*cites, C_XG_FAILED))
        state.status, state.restarts, state.evicted = "running", 0, False
        status_cite = {"PyTorchJob": C_PT_FAILED, "PaddleJob": C_PD_FAILED,
                       "JAXJob": C_JX_FAILED, "TFJob": C_TF_RESTARTING,
                       "XGBoostJob": C_XG_FAILED}[kind]
        return Reacted("recreated", "Running", deleted + " and creates it again (restart "
                       "count 0); the job is Restarting", (*cites, status_cite))
    # restartPolicy Never
    dynamic = as_bool(job.spec.get("enableDynamicWorker"))
    if kind == "TFJob" and replica.rtype == "Worker" and dynamic:
        return Reacted("kept", "Running", what + "; enableDynamicWorker: a failed worker does "
                       "not fail the job", (*cites, C_TF_DYNAMIC))
    status_cite = {"PyTorchJob": C_PT_FAILED, "PaddleJob": C_PD_FAILED, "JAXJob": C_JX_FAILED,
                   "TFJob": C_TF_FAILED, "XGBoostJob": C_XG_FAILED}[kind]
    return Reacted("kept", "Failed", what + "; restartPolicy Never: the failed replica fails "
                   "the job", (*cites, status_cite))
