"""SIMULATE: MPIJob under its two legacy controllers — mpi-operator v0.8.0
(``kubeflow.org/v2beta1``) and training-operator v1.9.2's MPI controller (``kubeflow.org/v1``).

mpi-operator v0.8.0 (``simulate_v2``): ``syncHandler`` defaults the job, skips one managed by
another controller, validates it (an invalid job gets an event and nothing else: ``Rejected``),
then creates the headless Service named after the job, the ``<job>-config`` ConfigMap with the
hostfile, the ``<job>-ssh`` Secret, the worker pods (``<job>-worker-<i>``, hostname and
subdomain set, ``sshd -De`` when the first container has neither command nor args) and the
launcher as a ``batch/v1`` Job (``<job>-launcher``: backoffLimit, activeDeadlineSeconds and
ttlSecondsAfterFinished from runPolicy). The MPIJob succeeds when the launcher Job completes
and fails when it fails or a worker is evicted; the launcher Job follows the Kubernetes Job
controller (failed pods counted against backoffLimit, default 6; under restartPolicy OnFailure
the containers' restarts).

training-operator's MPIJob v1 (``simulate_v1``): a launcher pod (not a Job, ``<job>-launcher``
with the kubectl-delivery init container and ``kubexec.sh``), worker pods
(``<job>-worker-<i>``, ``sleep 365d`` without a command), the ConfigMap, no Service; the
common reconcile loop's backoffLimit, and the MPI controller's status: the launcher's success
ends the job, a failed replica fails it (ExitCode: "Restarting", but nothing recreates the
pod).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from migrator.simulate import legacy_training as to
from migrator.simulate.legacy_common import (
    K8S_API,
    MPI_OPERATOR,
    TRAINING_OPERATOR,
    Cleanup,
    React,
    Reacted,
    Rejected,
    Run,
    as_bool,
    as_int,
    as_map,
    as_str,
    cite,
    containers,
    count,
    plain,
)
from migrator.simulate.model import Citation, Event, Phase, Pod, World

CONTROLLER_V2 = "mpi-operator v0.8.0"
LABEL = "training.kubeflow.org/"
JOB_DEFAULT_BACKOFF = 6


def _m(path: str, line: int, says: str, token: str) -> Citation:
    return cite(MPI_OPERATOR, path, line, says, token)


def _t(path: str, line: int, says: str, token: str) -> Citation:
    return cite(TRAINING_OPERATOR, path, line, says, token)


CTL = "pkg/controller/mpi_job_controller.go"
API = "pkg/apis/kubeflow/v2beta1/"
VAL = "pkg/apis/kubeflow/validation/validation.go"

M_MANAGED = _m(CTL, 598, "a job managed by another controller is skipped",
               "if manager := managedByExternalController(")
M_VALIDATE = _m(CTL, 608, "an invalid job gets an event and nothing else",
                "if errs := validation.ValidateMPIJob(mpiJob); len(errs) != 0 {")
M_SUSPENDED = _m(CTL, 665, "a suspended job gets no PodGroup and no workers",
                 "if !isMPIJobSuspended(mpiJob) {")
M_SUSPEND_JOB = _m(CTL, 1548, "and its launcher Job is created suspended",
                   "job.Spec.Suspend = ptr.To(true)")
M_CREATION = _m(CTL, 678, "launcher at startup, or once every worker is ready",
                "LauncherCreationPolicyAtStartup || c.countReadyWorkerPods(worker) == len(worker)")
M_LAUNCHER_JOB = _m(CTL, 1531, "the launcher is a batch/v1 Job <job>-launcher",
                    "Name:      mpiJob.Name + launcherSuffix,")
M_BACKOFF = _m(CTL, 1543, "the launcher Job's backoffLimit is runPolicy.backoffLimit",
               "BackoffLimit:            mpiJob.Spec.RunPolicy.BackoffLimit,")
M_DEADLINE = _m(CTL, 1542, "and its activeDeadlineSeconds",
                "ActiveDeadlineSeconds:   mpiJob.Spec.RunPolicy.ActiveDeadlineSeconds,")
M_TTL = _m(CTL, 1541, "and its ttlSecondsAfterFinished",
           "TTLSecondsAfterFinished: mpiJob.Spec.RunPolicy.TTLSecondsAfterFinished,")
M_SERVICE = _m(CTL, 1405, "one headless Service named after the job",
               "ClusterIP: corev1.ClusterIPNone,")
M_NOT_READY = _m(CTL, 1409, "publishNotReadyAddresses only with runLauncherAsWorker",
                 "PublishNotReadyAddresses: isRunLauncherAsWorker,")
M_SECRET = _m(CTL, 1436, "an SSH key Secret <job>-ssh", "job.Name + sshAuthSecretSuffix,")
M_SSH_MOUNT = _m(CTL, 1785, "the SSH volume mounted at sshAuthMountPath on container 0",
                 "MountPath: job.Spec.SSHAuthMountPath,")
M_SSH_MODE = _m(CTL, 1767, "mode 0600 when mounted at /root/.ssh", "mode = ptr.To[int32](0600)")
M_HOSTFILE = _m(CTL, 1333, "OpenMPI hostfile: <fqdn> slots=<slotsPerWorker>",
                'buffer.WriteString(fmt.Sprintf("%s slots=%d\\n"')
M_HOSTFILE_INTEL = _m(CTL, 1335, "Intel/MPICH hostfile: <fqdn>:<slots>",
                      'buffer.WriteString(fmt.Sprintf("%s:%d\\n"')
M_HOSTFILE_LAUNCHER = _m(CTL, 1323, "runLauncherAsWorker: the launcher first in the hostfile",
                         'buffer.WriteString(fmt.Sprintf("%s slots=%d\\n"')
M_DOMAIN = _m(CTL, 1312, "hostfile names are <pod>.<job>.<ns>.svc",
              'domainFormat := "%s.%s.%s.svc"')
M_WORKER_HOST = _m(CTL, 1486, "worker hostname is its name", "podTemplate.Spec.Hostname = name")
M_WORKER_SUB = _m(CTL, 1487, "subdomain is the job's Service",
                  "podTemplate.Spec.Subdomain = mpiJob.Name")
M_SEARCH = _m(CTL, 1494, "workers search <job>.<ns>.svc.cluster.local",
              'searche := fmt.Sprintf("%s.%s.svc.cluster.local", mpiJob.Name, mpiJob.Namespace)')
M_HOSTNET = _m(CTL, 1491, "hostNetwork: dnsPolicy ClusterFirstWithHostNet",
               "podTemplate.Spec.DNSPolicy = corev1.DNSClusterFirstWithHostNet")
M_SSHD = _m(CTL, 1504, "a worker without command and args runs sshd -De",
            'container.Command = []string{"/usr/sbin/sshd", "-De"}')
M_WORKER_ENV = _m(CTL, 1506, "workers get K_MPI_JOB_ROLE=worker",
                  "container.Env = append(container.Env, workerEnvVars...)")
M_INDEX = _m(CTL, 1485, "worker replica-index label",
             "= workerReplicaIndexLabel(mpiJob, index)")
M_INDEX_SHIFT = _m(CTL, 1465, "runLauncherAsWorker shifts worker indexes by one",
                   "return strconv.Itoa(index + 1)")
M_LAUNCHER_INDEX = _m(CTL, 1572, "runLauncherAsWorker: the launcher is replica-index 0",
                      'podTemplate.Labels[kubeflow.ReplicaIndexLabel] = "0"')
M_LAUNCHER_HOST = _m(CTL, 1574, "launcher hostname <job>-launcher",
                     "podTemplate.Spec.Hostname = launcherName")
M_LAUNCHER_SUB = _m(CTL, 1575, "launcher subdomain is the job's Service",
                    "podTemplate.Spec.Subdomain = mpiJob.Name")
M_LAUNCHER_ENV = _m(CTL, 1582, "the launcher gets K_MPI_JOB_ROLE=launcher",
                    "container.Env = append(container.Env, launcherEnvVars...)")
M_OMPI = _m(CTL, 184, "OpenMPI env: keep FQDN hostnames, the hostfile, rsh args",
            'Name:  "OMPI_MCA_orte_keep_fqdn_hostnames",')
M_OMPI_SLOTS = _m(CTL, 1588, "OMPI_MCA_orte_set_default_slots = slotsPerWorker",
                  "Name:  openMPISlotsEnv,")
M_INTEL = _m(CTL, 198, "Intel MPI env: the hostfile and bootstrap args",
             'Name:  "I_MPI_HYDRA_HOST_FILE",')
M_INTEL_SLOTS = _m(CTL, 1594, "I_MPI_PERHOST = slotsPerWorker", "Name:  intelMPISlotsEnv,")
M_MPICH = _m(CTL, 208, "MPICH env: the hostfile and launch args", 'Name:  "HYDRA_HOST_FILE",')
M_NVIDIA = _m(CTL, 216, "the launcher hides GPUs unless it runs as a worker",
              "nvidiaDisableEnvVars = []corev1.EnvVar{")
M_CONFIG_MOUNT = _m(CTL, 1632, "the launcher mounts the config at /etc/mpi",
                    "MountPath: configMountPath,")
M_RESTART = _m(CTL, 1695, "ExitCode would become Never (validation refuses it first)",
               "podTemplateSpec.Spec.RestartPolicy = corev1.RestartPolicyNever")
M_LABELS = _m(CTL, 1747, "operator-name, job-name and job-role labels",
              "kubeflow.JobRoleLabel:      role,")
M_SUCCEEDED = _m(CTL, 1115, "the MPIJob succeeds when the launcher Job completes",
                 "if isJobSucceeded(launcher) {")
M_FAILED = _m(CTL, 1124, "the MPIJob fails when the launcher Job fails",
              "} else if isJobFailed(launcher) {")
M_EVICTED = _m(CTL, 1143, "an evicted worker", 'if worker[i].Status.Reason == "Evicted" {')
M_EVICT_FAIL = _m(CTL, 1156, "fails the MPIJob", "mpiJobEvict, msg)")
M_WORKER_GET = _m(CTL, 1016, "only a missing worker pod is created (a failed one stays)",
                  "pod, err = c.kubeClient.CoreV1().Pods(mpiJob.Namespace).Create(")
M_CLEANUP = _m(CTL, 625, "a finished MPIJob with a completionTime has its workers cleaned up",
               "if isFinished(mpiJob.Status) && mpiJob.Status.CompletionTime != nil {")
M_CLEAN_RUNNING = _m(CTL, 1075, "cleanPodPolicy Running keeps workers that are not running",
                     "CleanPodPolicyRunning && !isPodRunning(pod) && !isPodPending(pod)")
M_GANG = _m(CTL, 667, "a PodGroup only with a gang scheduler", "if c.PodGroupCtrl != nil {")
M_PG_MIN = _m("pkg/controller/podgroup.go", 396, "PodGroup minMember = workers + 1",
              "return ptr.To(workerReplicas(mpiJob) + 1)")
M_PG_MIN_SET = _m("pkg/controller/podgroup.go", 394, "or schedulingPolicy.minAvailable",
                  "return schedulingPolicy.MinAvailable")
M_PG_QUEUE = _m("pkg/controller/podgroup.go", 115, "Volcano queue: schedulingPolicy.queue, else "
                "the queue-name annotation", "len(schedulingPolicy.Queue) != 0 {")
M_PG_PRIORITY = _m("pkg/controller/podgroup.go", 407, "priorityClass: schedulingPolicy, launcher, "
                   "worker", "len(schedulingPolicy.PriorityClass) != 0 {")
M_PG_TIMEOUT = _m("pkg/controller/podgroup.go", 245, "scheduler-plugins timeout defaults to 0",
                  "scheduleTimeoutSec := ptr.To[int32](0)")
M_VOLCANO = _m("pkg/controller/podgroup.go", 163, "Volcano overwrites schedulerName",
               "pts.Spec.SchedulerName = v.schedulerName")
M_PLUGINS = _m("pkg/controller/podgroup.go", 298, "scheduler-plugins overwrites schedulerName",
               "pts.Spec.SchedulerName = s.schedulerName")
M_D_LAUNCHER_RESTART = _m(API + "constants.go", 23, "launcher restartPolicy defaults to OnFailure",
                          "DefaultLauncherRestartPolicy = RestartPolicyOnFailure")
M_D_WORKER_RESTART = _m(API + "constants.go", 21, "worker restartPolicy defaults to Never",
                        "DefaultRestartPolicy = RestartPolicyNever")
M_D_WORKERS = _m(API + "default.go", 48, "worker replicas default to 0 (then refused)",
                 "spec.Replicas = ptr.To[int32](0)")
M_D_AS_IS = _m(API + "default.go", 56, "runPolicy's other fields go to the Job as they are (the "
               "Job API defaults them)", "The remaining fields are passed as-is to the k8s Job API")
M_D_SLOTS = _m(API + "default.go", 63, "slotsPerWorker defaults to 1",
               "mpiJob.Spec.SlotsPerWorker = ptr.To[int32](1)")
M_D_SSH = _m(API + "default.go", 66, "sshAuthMountPath defaults to /root/.ssh",
             'mpiJob.Spec.SSHAuthMountPath = "/root/.ssh"')
M_D_IMPL = _m(API + "default.go", 69, "mpiImplementation defaults to OpenMPI",
              "mpiJob.Spec.MPIImplementation = MPIImplementationOpenMPI")
M_D_CREATION = _m(API + "default.go", 72, "launcherCreationPolicy defaults to AtStartup",
                  "mpiJob.Spec.LauncherCreationPolicy = LauncherCreationPolicyAtStartup")
M_V_RESTART = _m(VAL, 42, "restartPolicy must be Never or OnFailure",
                 "string(kubeflow.RestartPolicyOnFailure))")
M_V_LAUNCHER = _m(VAL, 126, "a Launcher replica spec is required",
                  '"must have %s replica spec", kubeflow.MPIReplicaTypeLauncher')
M_V_LAUNCHER_ONE = _m(VAL, 131, "Launcher replicas must be 1", '"must be 1"')
M_V_WORKERS = _m(VAL, 143, "Worker replicas must be at least 1",
                 '"must be greater than or equal to 1"')
M_V_CONTAINERS = _m(VAL, 157, "every replica needs a container",
                    '"must define at least one container"')
M_V_NAME = _m(VAL, 64, "<job>-worker-<n-1> must be a DNS-1035 label",
              "apimachineryvalidation.IsDNS1035Label(maximumPodHostname)")
M_V_MANAGED = _m(VAL, 105, "managedBy must be mpi-operator or MultiKueue",
                 "if !validManagedBy.Has(*policy.ManagedBy) {")
M_V_IMPL = _m(VAL, 81, "mpiImplementation must be OpenMPI, Intel or MPICH",
              "if !validMPIImplementations.Has(string(spec.MPIImplementation)) {")
M_V_SLOTS = _m(VAL, 75, "slotsPerWorker must not be negative",
               'path.Child("slotsPerWorker"))...)')
M_V_CLEAN = _m(VAL, 91, "cleanPodPolicy must be None, Running or All",
               "} else if !validCleanPolicies.Has(string(*policy.CleanPodPolicy)) {")

K_BACKOFF_DEFAULT = cite(K8S_API, "batch/v1/types.go", 351, "a Job's backoffLimit defaults to 6",
                         "Defaults to 6, unless backoffLimitPerIndex")
K_FAILED_COUNTED = cite(K8S_API, "batch/v1/types.go", 333,
                        "a Job's failed pods are counted against its backoffLimit",
                        "the counter of failed pods,")

# training-operator's MPI controller (kubeflow.org/v1)
V1 = "pkg/controller.v1/mpi/"
T_VALIDATE = _t("pkg/apis/kubeflow.org/v1/mpi_validation.go", 62,
                  "MPIJob v1: a Launcher is required", "if !launcherExists {")
T_VALIDATE_TYPES = _t("pkg/apis/kubeflow.org/v1/mpi_validation.go", 40,
                        "MPIJob v1: only Launcher and Worker", "if !isValidReplicaType {")
T_VALIDATE_CONTAINERS = _t("pkg/apis/kubeflow.org/v1/mpi_validation.go",
                             27, "MPIJob v1: every replica needs containers",
                             "len(value.Template.Spec.Containers) == 0")
T_VALIDATE_IMAGE = _t("pkg/apis/kubeflow.org/v1/mpi_validation.go", 45,
                        "MPIJob v1: every container needs an image", 'if container.Image == "" {')
T_VALIDATE_ONE = _t("pkg/apis/kubeflow.org/v1/mpi_validation.go", 55,
                      "MPIJob v1: one launcher replica", "int(*value.Replicas) != 1")
T_LAUNCHER_POD = _t(V1 + "mpijob_controller.go", 1006,
                      "the launcher is a pod <job>-launcher",
            "launcherName := mpiJob.Name + launcherSuffix")
T_WORKER_NAME = _t(V1 + "mpijob_controller.go", 873,
                     "workers are pods <job>-worker-<i>",
               'name := fmt.Sprintf("%s-%d", workerPrefix, i)')
T_SLEEP = _t(V1 + "mpijob_controller.go", 943,
               "a worker without a command sleeps 365d", 'container.Command = []string{"sleep"}')
T_LAUNCHER_ENV = _t(V1 + "mpijob_controller.go", 1087,
                      "OMPI_MCA_plm_rsh_agent=kubexec.sh and the hostfile",
                      'Name:  "OMPI_MCA_plm_rsh_agent",')
T_NVIDIA = _t(V1 + "mpijob_controller.go", 1096,
                "a launcher without GPU limits hides GPUs", "if !isGPULauncher {")
T_INTEL = _t(V1 + "mpijob_controller.go", 1116,
               "I_MPI_HYDRA_BOOTSTRAP(_EXEC) unless set", 'Name:  "I_MPI_HYDRA_BOOTSTRAP",')
T_SA = _t(V1 + "mpijob_controller.go", 1038,
            "the launcher's service account defaults to <job>-launcher",
            "podSpec.Spec.ServiceAccountName = launcherName")
T_DELIVERY = _t(V1 + "mpijob_controller.go", 1042,
                  "the kubectl-delivery init container", "Name:            kubectlDeliveryName,")
T_DELIVERY_IMAGE = _t("pkg/config/config.go", 35,
                        "kubectl-delivery image", "MPIKubectlDeliveryImageDefault = ")
T_HOSTFILE = _t(V1 + "mpijob_controller.go", 1248,
                  "hostfile: <job>-worker-<i> slots=<slots>",
                  'buffer.WriteString(fmt.Sprintf("%s%s-%d slots=%d\\n"')
T_HOSTFILE_GPU = _t(V1 + "mpijob_controller.go", 1245,
                      "a GPU launcher is in the hostfile too",
                      'buffer.WriteString(fmt.Sprintf("%s%s slots=%d\\n"')
T_GPU = _t(V1 + "mpijob.go", 196, "a launcher with a *.com/gpu limit is a GPU launcher",
             "if strings.HasSuffix(string(key), gpuResourceNameSuffix) {")
T_ROLE = _t(V1 + "mpijob_controller.go", 1013,
              "the launcher carries job-role=master", 'labels[kubeflowv1.JobRoleLabel] = "master"')
T_TYPE_LABEL = _t(V1 + "mpijob.go", 233, "replica-type launcher/worker",
                    "replicaLabels[kubeflowv1.ReplicaTypeLabel] = roleLabelVal")
T_INDEX = _t(V1 + "mpijob_controller.go", 888, "worker replica-index",
               "worker.Labels[kubeflowv1.ReplicaIndexLabel] = strconv.Itoa(int(i))")
T_NO_SERVICE = _t(V1 + "mpijob_controller.go", 268,
                    "MPIJob v1 creates no services", "return nil")
T_SUCCEEDED = _t(V1 + "mpijob_controller.go", 581,
                   "the launcher's success ends the job",
                   "if rtype == kubeflowv1.MPIJobReplicaTypeLauncher {")
T_FAILED = _t(V1 + "mpijob_controller.go", 601,
                "a failed replica: Restarting under ExitCode, else the job fails",
                "if spec.RestartPolicy == kubeflowv1.RestartPolicyExitCode {")
T_NOT_RECREATED = _t(V1 + "mpijob_controller.go", 880,
                       "only a missing worker pod is created", "if apierrors.IsNotFound(err) {")
T_DONE = _t(V1 + "mpijob_controller.go", 360,
              "a finished launcher is never replaced",
        "done := launcher != nil && isPodFinished(launcher)")
T_CLEAN_SYNC = _t(V1 + "mpijob_controller.go", 163, "runPolicy.cleanPodPolicy wins over the "
                  "deprecated spec.cleanPodPolicy", "mpijob.Spec.RunPolicy.CleanPodPolicy != nil {")
T_D_RESTART = _t("pkg/apis/kubeflow.org/v1/mpi_types.go", 29,
                   "MPIJob v1 restart policy defaults to Never",
                   "MPIJobDefaultRestartPolicy = RestartPolicyNever")
T_D_WORKERS = _t("pkg/apis/kubeflow.org/v1/mpi_defaults.go", 34,
                   "MPIJob v1 worker replicas default to 0",
                   "setDefaultReplicas(mpiJob.Spec.MPIReplicaSpecs[MPIJobReplicaTypeWorker], 0)")
T_CONTROLLER = _t(V1 + "mpijob_controller.go", 68,
                    "operator-name mpijob-controller", 'controllerName  = "mpijob-controller"')
T_DECORATE = _t(V1 + "mpijob_controller.go", 985,
                  "gang scheduling decorates the worker template",
                  "jc.PodGroupControl.DecoratePodTemplateSpec(podSpec, mpiJob, rtWorker)")


def _env(name: str, value: str) -> dict[str, Any]:
    return {"name": name, "value": value}


def _append(container: dict[str, Any], key: str, items: list[Any]) -> None:
    current = container.get(key)
    if not isinstance(current, list):
        current = []
        container[key] = current
    current.extend(items)


def _order(pod: Pod) -> tuple[str, int]:
    return (pod.identity.rpartition("-")[0], pod.index)


def _replica(specs: Mapping[str, Any], rtype: str) -> Mapping[str, Any] | None:
    value = specs.get(rtype)
    return value if isinstance(value, Mapping) else None


# --- mpi-operator v0.8.0 ---------------------------------------------------------------------


def simulate_v2(job: Mapping[str, Any], gang_scheduler: str | None) -> tuple[
        World, React, str, Cleanup]:
    name, namespace = to.metadata(job)
    spec = as_map(job.get("spec"))
    run_policy = as_map(spec.get("runPolicy"))
    specs = {str(k): v for k, v in as_map(spec.get("mpiReplicaSpecs")).items()}
    cites: list[Citation] = [M_D_SLOTS, M_D_SSH, M_D_IMPL, M_D_CREATION]
    slots = as_int(spec.get("slotsPerWorker"))
    slots = 1 if slots is None else slots
    ssh_path = as_str(spec.get("sshAuthMountPath")) or "/root/.ssh"
    impl = as_str(spec.get("mpiImplementation")) or "OpenMPI"
    creation = as_str(spec.get("launcherCreationPolicy")) or "AtStartup"
    as_worker = as_bool(spec.get("runLauncherAsWorker"))
    launcher = _replica(specs, "Launcher")
    worker = _replica(specs, "Worker")
    launcher_restart = as_str(as_map(launcher).get("restartPolicy")) or "OnFailure"
    worker_restart = as_str(as_map(worker).get("restartPolicy")) or "Never"
    workers = as_int(as_map(worker).get("replicas")) if worker is not None else 0
    workers = count(0 if workers is None else workers, f"MPIJob {name}")
    cites += [M_D_LAUNCHER_RESTART, M_D_WORKER_RESTART]
    extras: dict[str, Any] = {"kind": "MPIJob", "apiVersion": "kubeflow.org/v2beta1",
                              "runPolicy": plain(run_policy)}
    manager = as_str(run_policy.get("managedBy"))
    if manager is not None and manager != "kubeflow.org/mpi-operator":
        extras["managedBy"] = manager  # skipped before validation (syncHandler)
        cites.append(M_MANAGED)
        return World("legacy", CONTROLLER_V2, (), extras, tuple(dict.fromkeys(cites))), \
            _never, "", _v2_cleanup(run_policy)
    _validate_v2(name, specs, launcher, worker, slots, impl, run_policy, manager)
    assert launcher is not None  # _validate_v2 refuses a job without one
    limit = as_int(run_policy.get("backoffLimit"))
    extras["launcherJob"] = {
        "name": f"{name}-launcher",
        "backoffLimit": JOB_DEFAULT_BACKOFF if limit is None else limit,
        "activeDeadlineSeconds": as_int(run_policy.get("activeDeadlineSeconds")),
        "ttlSecondsAfterFinished": as_int(run_policy.get("ttlSecondsAfterFinished")),
        "restartPolicy": launcher_restart, "launcherCreationPolicy": creation}
    cites += [M_LAUNCHER_JOB, M_BACKOFF, M_DEADLINE, M_TTL, M_CREATION]
    if limit is None:
        cites += [M_D_AS_IS, K_BACKOFF_DEFAULT]
    extras["service"] = {"name": name, "clusterIP": "None",
                         "publishNotReadyAddresses": as_worker}
    extras["secret"] = f"{name}-ssh"
    cites += [M_SERVICE, M_NOT_READY, M_SECRET]
    hosts = ([f"{name}-launcher"] if as_worker else []) + \
        [f"{name}-worker-{i}" for i in range(workers)]
    fqdn = [f"{host}.{name}.{namespace}.svc" for host in hosts]
    if impl == "OpenMPI":
        hostfile = "".join(f"{host} slots={slots}\n" for host in fqdn)
        cites.append(M_HOSTFILE)
    else:
        hostfile = "".join(f"{host}:{slots}\n" for host in fqdn)
        cites.append(M_HOSTFILE_INTEL)
    if as_worker:
        cites.append(M_HOSTFILE_LAUNCHER)
    extras["configMap"] = {"name": f"{name}-config", "hostfile": hostfile}
    cites.append(M_DOMAIN)
    if as_bool(run_policy.get("suspend")):
        extras["suspended"] = True
        extras["launcherJob"]["suspend"] = True
        cites += [M_SUSPENDED, M_SUSPEND_JOB]
        return World("legacy", CONTROLLER_V2, (), extras, tuple(dict.fromkeys(cites))), \
            _never, "", _v2_cleanup(run_policy)
    scheduler = to.gang(gang_scheduler)
    if scheduler is not None:
        extras["podGroup"] = _v2_pod_group(job, name, workers, launcher, worker, scheduler[1],
                                           cites)
    pods = [_v2_worker(name, namespace, as_map(worker), worker_restart, i, ssh_path, as_worker,
                       scheduler, cites) for i in range(workers)]
    pods.append(_v2_launcher(name, launcher, launcher_restart, slots, ssh_path, impl, as_worker,
                             scheduler, cites))
    cites.append(M_LABELS)
    world = World("legacy", CONTROLLER_V2, tuple(sorted(pods, key=_order)), extras,
                  tuple(dict.fromkeys(cites)))
    note = ""
    if creation == "WaitForWorkersReady":
        note = ("launcherCreationPolicy WaitForWorkersReady: the launcher Job exists once every "
                "worker is ready (taken as given)")
    backoff = JOB_DEFAULT_BACKOFF if limit is None else limit
    return world, _v2_reactor(launcher_restart, worker_restart, backoff, limit is None), note, \
        _v2_cleanup(run_policy)


def _v2_pod_group(job: Mapping[str, Any], name: str, workers: int,
                  launcher: Mapping[str, Any], worker: Mapping[str, Any] | None, volcano: bool,
                  cites: list[Citation]) -> dict[str, Any]:
    """``newPodGroup`` of the Volcano or scheduler-plugins controller."""
    policy = as_map(as_map(as_map(job.get("spec")).get("runPolicy")).get("schedulingPolicy"))
    minimum = as_int(policy.get("minAvailable"))
    group: dict[str, Any] = {"kind": "volcano" if volcano else "scheduler-plugins",
                             "name": name,
                             "minMember": workers + 1 if minimum is None else minimum}
    cites += [M_GANG, M_PG_MIN_SET if minimum is not None else M_PG_MIN]
    if volcano:
        annotations = as_map(as_map(job.get("metadata")).get("annotations"))
        group["queue"] = as_str(policy.get("queue")) or \
            as_str(annotations.get("scheduling.volcano.sh/queue-name")) or ""
        group["priorityClassName"] = as_str(policy.get("priorityClass")) or next(
            (value for value in (
                as_str(as_map(as_map(spec.get("template")).get("spec")).get("priorityClassName"))
                for spec in (launcher, as_map(worker))) if value), "")
        cites += [M_PG_QUEUE, M_PG_PRIORITY]
    else:
        timeout = as_int(policy.get("scheduleTimeoutSeconds"))
        group["scheduleTimeoutSeconds"] = 0 if timeout is None else timeout
        cites.append(M_PG_TIMEOUT)
    return group


def _validate_v2(name: str, specs: Mapping[str, Any], launcher: Mapping[str, Any] | None,
                 worker: Mapping[str, Any] | None, slots: int, impl: str,
                 run_policy: Mapping[str, Any], manager: str | None) -> None:
    """``validation.ValidateMPIJob`` on the defaulted job."""
    reasons: list[str] = []
    cites: list[Citation] = []

    def no(reason: str, citation: Citation) -> None:
        reasons.append(reason)
        cites.append(citation)

    workers = as_int(as_map(worker).get("replicas")) if worker is not None else None
    highest = workers if workers is not None and workers > 0 else 1
    if not to._dns1035(f"{name}-worker-{highest - 1}"):
        no(f"{name}-worker-{highest - 1} is not a DNS-1035 label", M_V_NAME)
    if launcher is None:
        no("a Launcher replica spec is required", M_V_LAUNCHER)
    for rtype, rspec in (("Launcher", launcher), ("Worker", worker)):
        if rspec is None:
            continue
        restart = as_str(rspec.get("restartPolicy")) or ("OnFailure" if rtype == "Launcher"
                                                         else "Never")
        if restart not in ("Never", "OnFailure"):
            no(f"{rtype} restartPolicy {restart!r} is not Never or OnFailure", M_V_RESTART)
        if not containers(as_map(as_map(rspec.get("template")).get("spec"))):
            no(f"{rtype} needs at least one container", M_V_CONTAINERS)
        replicas = as_int(rspec.get("replicas"))
        if rtype == "Launcher" and replicas is not None and replicas != 1:
            no("Launcher replicas must be 1", M_V_LAUNCHER_ONE)
        if rtype == "Worker" and (replicas is None or replicas <= 0):
            no("Worker replicas must be at least 1 (unset defaults to 0)", M_V_WORKERS)
            cites.append(M_D_WORKERS)
    if slots < 0:
        no("slotsPerWorker is negative", M_V_SLOTS)
    if impl not in ("OpenMPI", "Intel", "MPICH"):
        no(f"mpiImplementation {impl!r} is not OpenMPI, Intel or MPICH", M_V_IMPL)
    clean = as_str(run_policy.get("cleanPodPolicy"))
    if clean is not None and clean not in ("None", "Running", "All"):
        no(f"cleanPodPolicy {clean!r} is not None, Running or All", M_V_CLEAN)
    if manager is not None and manager not in ("kubeflow.org/mpi-operator",
                                               "kueue.x-k8s.io/multikueue"):
        no(f"managedBy {manager!r} is not supported", M_V_MANAGED)
    if reasons:
        raise Rejected([f"mpi-operator refuses the MPIJob (a ValidationError event, nothing "
                        f"created): {reason}" for reason in reasons], [M_VALIDATE, *cites])


def _ssh(spec: dict[str, Any], name: str, ssh_path: str, cites: list[Citation]) -> None:
    volume: dict[str, Any] = {"name": "ssh-auth", "secret": {
        "secretName": f"{name}-ssh",
        "items": [{"key": "ssh-privatekey", "path": "id_rsa"},
                  {"key": "ssh-publickey", "path": "id_rsa.pub"},
                  {"key": "ssh-publickey", "path": "authorized_keys"}]}}
    if ssh_path == "/root/.ssh":
        volume["secret"]["defaultMode"] = 0o600
        cites.append(M_SSH_MODE)
    _append(spec, "volumes", [volume])
    items = containers(spec)
    if items:
        _append(items[0], "volumeMounts", [{"name": "ssh-auth", "mountPath": ssh_path}])
    cites.append(M_SSH_MOUNT)


def _v2_decorate(template: dict[str, Any], name: str, scheduler: tuple[str, bool] | None,
                 cites: list[Citation]) -> None:
    if scheduler is None:
        return
    spec = template.setdefault("spec", {})
    meta = template.setdefault("metadata", {})
    if isinstance(spec, dict):
        spec["schedulerName"] = scheduler[0]
    if isinstance(meta, dict):
        if scheduler[1]:
            annotations = meta.setdefault("annotations", {})
            if isinstance(annotations, dict):
                annotations["scheduling.k8s.io/group-name"] = name
        else:
            labels = meta.setdefault("labels", {})
            if isinstance(labels, dict):
                labels["scheduling.x-k8s.io/pod-group"] = name
    cites.append(M_VOLCANO if scheduler[1] else M_PLUGINS)


def _labels_of(template: Mapping[str, Any]) -> dict[str, str]:
    return {str(k): v if isinstance(v, str) else str(v)
            for k, v in as_map(as_map(template.get("metadata")).get("labels")).items()}


def _v2_worker(name: str, namespace: str, worker: Mapping[str, Any], restart: str, index: int,
               ssh_path: str, as_worker: bool, scheduler: tuple[str, bool] | None,
               cites: list[Citation]) -> Pod:
    template = plain(as_map(worker.get("template")))
    if not isinstance(template.get("spec"), dict):
        template["spec"] = {}
    spec: dict[str, Any] = template["spec"]
    host = f"{name}-worker-{index}"
    labels = _labels_of(template)
    labels.update({LABEL + "operator-name": "mpi-operator", LABEL + "job-name": name,
                   LABEL + "job-role": "worker",
                   LABEL + "replica-index": str(index + 1 if as_worker else index)})
    cites += [M_INDEX] + ([M_INDEX_SHIFT] if as_worker else [])
    meta = template.setdefault("metadata", {})
    if isinstance(meta, dict):
        meta["labels"] = labels
    spec["hostname"] = host
    spec["subdomain"] = name
    cites += [M_WORKER_HOST, M_WORKER_SUB]
    if as_bool(spec.get("hostNetwork")):
        spec["dnsPolicy"] = "ClusterFirstWithHostNet"
        cites.append(M_HOSTNET)
    dns = spec.get("dnsConfig")
    if not isinstance(dns, dict):
        dns = {}
        spec["dnsConfig"] = dns
    _append(dns, "searches", [f"{name}.{namespace}.svc.cluster.local"])
    cites.append(M_SEARCH)
    spec["restartPolicy"] = restart
    items = containers(spec)
    if items:
        first = items[0]
        if not first.get("command") and not first.get("args"):
            first["command"] = ["/usr/sbin/sshd", "-De"]
            cites.append(M_SSHD)
        _append(first, "env", [_env("K_MPI_JOB_ROLE", "worker")])
        cites.append(M_WORKER_ENV)
    _ssh(spec, name, ssh_path, cites)
    _v2_decorate(template, name, scheduler, cites)
    return Pod(f"node-{index}", "worker", index, host, _labels_of(template), spec,
               (f"{host}.{name}",))


def _v2_launcher(name: str, launcher: Mapping[str, Any], restart: str, slots: int,
                 ssh_path: str, impl: str, as_worker: bool,
                 scheduler: tuple[str, bool] | None, cites: list[Citation]) -> Pod:
    template = plain(as_map(launcher.get("template")))
    if not isinstance(template.get("spec"), dict):
        template["spec"] = {}
    spec: dict[str, Any] = template["spec"]
    host = f"{name}-launcher"
    labels = _labels_of(template)
    labels.update({LABEL + "operator-name": "mpi-operator", LABEL + "job-name": name,
                   LABEL + "job-role": "launcher"})
    if as_worker:
        labels[LABEL + "replica-index"] = "0"
        cites.append(M_LAUNCHER_INDEX)
    meta = template.setdefault("metadata", {})
    if isinstance(meta, dict):
        meta["labels"] = labels
    _v2_decorate(template, name, scheduler, cites)
    spec["hostname"] = host
    spec["subdomain"] = name
    cites += [M_LAUNCHER_HOST, M_LAUNCHER_SUB]
    if as_bool(spec.get("hostNetwork")):
        spec["dnsPolicy"] = "ClusterFirstWithHostNet"
        cites.append(M_HOSTNET)
    items = containers(spec)
    hostfile = "/etc/mpi/hostfile"
    if items:
        env = [_env("K_MPI_JOB_ROLE", "launcher")]
        cites.append(M_LAUNCHER_ENV)
        if impl == "OpenMPI":
            env += [_env("OMPI_MCA_orte_keep_fqdn_hostnames", "true"),
                    _env("OMPI_MCA_orte_default_hostfile", hostfile),
                    _env("OMPI_MCA_plm_rsh_args", "-o ConnectionAttempts=10"),
                    _env("OMPI_MCA_orte_set_default_slots", str(slots))]
            cites += [M_OMPI, M_OMPI_SLOTS]
        elif impl == "Intel":
            env += [_env("I_MPI_HYDRA_HOST_FILE", hostfile),
                    _env("I_MPI_HYDRA_BOOTSTRAP_EXEC_EXTRA_ARGS", "-o ConnectionAttempts=10"),
                    _env("I_MPI_PERHOST", str(slots))]
            cites += [M_INTEL, M_INTEL_SLOTS]
        else:
            env += [_env("HYDRA_HOST_FILE", hostfile),
                    _env("HYDRA_LAUNCH_EXTRA_ARGS", "-o ConnectionAttempts=10")]
            cites.append(M_MPICH)
        if not as_worker:
            env += [{"name": "NVIDIA_VISIBLE_DEVICES"}, {"name": "NVIDIA_DRIVER_CAPABILITIES"}]
            cites.append(M_NVIDIA)
        _append(items[0], "env", env)
    _ssh(spec, name, ssh_path, cites)
    spec["restartPolicy"] = restart
    _append(spec, "volumes", [{"name": "mpi-job-config", "configMap": {
        "name": f"{name}-config",
        "items": [{"key": "hostfile", "path": "hostfile", "mode": 0o444},
                  {"key": "discover_hosts.sh", "path": "discover_hosts.sh", "mode": 0o555}]}}])
    if items:
        _append(items[0], "volumeMounts", [{"name": "mpi-job-config", "mountPath": "/etc/mpi"}])
    cites.append(M_CONFIG_MOUNT)
    return Pod("launcher-0", "launcher", 0, host, _labels_of(template), spec, (f"{host}.{name}",))


def _v2_cleanup(run_policy: Mapping[str, Any]) -> Cleanup:
    """What mpi-operator does with the workers once the MPIJob finished."""
    policy = as_str(run_policy.get("cleanPodPolicy")) or "None"

    def clean(run: Run, phase: Phase) -> tuple[str, tuple[Citation, ...]]:
        evicted = any(state.evicted for identity, state in run.pods.items()
                      if identity != "launcher-0")
        if evicted:
            return ("no completionTime is set for an eviction: mpi-operator keeps reconciling "
                    "and the launcher Job and the other workers keep running",
                    (M_CLEANUP, M_EVICT_FAIL))
        if policy == "All":
            return ("cleanPodPolicy All: mpi-operator deletes every worker pod (the launcher "
                    "Job stays until its ttl)", (M_CLEANUP,))
        if policy == "Running":
            return ("cleanPodPolicy Running: mpi-operator deletes the running and pending worker "
                    "pods (the launcher Job stays until its ttl)", (M_CLEANUP, M_CLEAN_RUNNING))
        return ("cleanPodPolicy None: the worker pods stay (running ones keep running)",
                (M_CLEANUP,))

    return clean


def _never(run: Run, event: Event) -> Reacted:  # pragma: no cover - no pod exists to react
    return Reacted("kept", "Running", f"no pod {event.identity}")


def _v2_reactor(launcher_restart: str, worker_restart: str, backoff: int,
                defaulted: bool) -> React:
    limit_cites = (M_D_AS_IS, K_BACKOFF_DEFAULT) if defaulted else (M_BACKOFF,)
    limit_text = f"backoffLimit {backoff}" + (" (the Job default)" if defaulted else "")
    failed_pods = [0]

    def react(run: Run, event: Event) -> Reacted:
        state = run.pods[event.identity]
        if event.identity == "launcher-0":
            return launcher(run, event)
        # a worker pod, owned by the MPIJob
        if event.action == "evict":
            state.status, state.evicted = "failed", True
            return Reacted("kept", "Failed", f"{event.identity} evicted: mpi-operator marks the "
                           "MPIJob Failed (MPIJobEvicted); nothing recreates the pod",
                           (M_EVICTED, M_EVICT_FAIL, M_WORKER_GET))
        if event.code != 0 and worker_restart == "OnFailure":
            state.restarts += 1
            return Reacted("restarted", "Running", f"{event.identity} exited {event.code}; "
                           "restartPolicy OnFailure: the kubelet restarts it in place (workers' "
                           "restarts are not counted)", (M_D_WORKER_RESTART,))
        state.status = "succeeded" if event.code == 0 else "failed"
        why = (f"{event.identity} exited {event.code}: the worker pod stays "
               f"{state.status} (mpi-operator only creates missing workers); the MPIJob "
               "follows the launcher")
        if event.code != 0:
            why += " (mpirun in the launcher usually fails next: the application's doing, " \
                   "not modelled)"
        return Reacted("kept", "Running", why, (M_WORKER_GET, M_SUCCEEDED))

    def launcher(run: Run, event: Event) -> Reacted:
        state = run.pods[event.identity]
        if event.action == "exit" and event.code == 0:
            state.status = "succeeded"
            return Reacted("kept", "Succeeded", "launcher-0 exited 0: the launcher Job completes "
                           "and the MPIJob succeeds", (M_SUCCEEDED,))
        if event.action == "exit" and launcher_restart == "OnFailure":
            state.restarts += 1
            total = run.restarts_where(lambda identity: identity == "launcher-0")
            why = (f"launcher-0 exited {event.code}; restartPolicy OnFailure: the kubelet "
                   f"restarts it in place; the Job controller counts its restarts ({total}) "
                   f"against {limit_text} (pastBackoffLimitOnFailure of the Kubernetes Job "
                   "controller)")
            if (backoff == 0 and total > 0) or (backoff > 0 and total >= backoff):
                return Reacted("restarted", "Failed", why + ": the launcher Job fails and so "
                               "does the MPIJob", (*limit_cites, M_FAILED))
            return Reacted("restarted", "Running", why, limit_cites)
        failed_pods[0] += 1
        cause = "evicted" if event.action == "evict" else f"exited {event.code}"
        why = (f"launcher-0 {cause}: the launcher pod failed; the Job counts {failed_pods[0]} "
               f"failed pod(s) against {limit_text}")
        if failed_pods[0] > backoff:
            state.status = "failed"
            return Reacted("kept", "Failed", why + ": the launcher Job fails and so does the "
                           "MPIJob", (*limit_cites, K_FAILED_COUNTED, M_FAILED))
        state.status, state.restarts = "running", 0
        return Reacted("recreated", "Running", why + ": the Job controller creates a new "
                       "launcher pod", (*limit_cites, K_FAILED_COUNTED))

    return react


# --- training-operator's MPIJob v1 -----------------------------------------------------------


def simulate_v1(job: Mapping[str, Any], gang_scheduler: str | None) -> tuple[
        World, React, str, Cleanup]:
    name, namespace = to.metadata(job)
    spec = as_map(job.get("spec"))
    run_policy = as_map(spec.get("runPolicy"))
    specs = {str(k): v for k, v in as_map(spec.get("mpiReplicaSpecs")).items()}
    _validate_v1(spec, specs)
    launcher = as_map(specs.get("Launcher"))
    worker = _replica(specs, "Worker")
    restart = {"Launcher": as_str(launcher.get("restartPolicy")) or "Never",
               "Worker": as_str(as_map(worker).get("restartPolicy")) or "Never"}
    for rtype, policy in restart.items():
        if policy not in to.RESTART_POLICIES:
            raise Rejected([f"{rtype}: restartPolicy {policy!r} is not one of "
                            f"{', '.join(to.RESTART_POLICIES)}"], [to.C_RESTART_POD])
    workers = as_int(as_map(worker).get("replicas")) if worker is not None else 0
    workers = count(0 if workers is None else max(workers, 0), f"MPIJob {name}")
    slots = as_int(spec.get("slotsPerWorker"))
    slots = 1 if slots is None else slots
    cites: list[Citation] = [T_D_RESTART, T_D_WORKERS, T_CONTROLLER, T_CLEAN_SYNC]
    extras: dict[str, Any] = {"kind": "MPIJob", "apiVersion": "kubeflow.org/v1",
                              "runPolicy": plain(run_policy),
                              "replicas": {"Launcher": {"replicas": 1,
                                                        "restartPolicy": restart["Launcher"]},
                                           "Worker": {"replicas": workers,
                                                      "restartPolicy": restart["Worker"]}}}
    manager = as_str(run_policy.get("managedBy"))
    if manager is not None and manager != "kubeflow.org/training-operator":
        extras["managedBy"] = manager
        cites.append(to.C_MANAGED)
        return World("legacy", to.CONTROLLER, (), extras, tuple(dict.fromkeys(cites))), \
            _never, "", to.cleanup(_v1_policy(spec, run_policy))
    if as_bool(run_policy.get("suspend")):
        extras["suspended"] = True
        cites.append(to.C_SUSPEND)
        return World("legacy", to.CONTROLLER, (), extras, tuple(dict.fromkeys(cites))), \
            _never, "", to.cleanup(_v1_policy(spec, run_policy))
    gpu = any(_gpu_key(key) for item in containers(as_map(as_map(launcher.get("template"))
                                                           .get("spec")))
              for key in as_map(as_map(item.get("resources")).get("limits")))
    hostfile = (f"{name}-launcher slots={slots}\n" if gpu else "") + "".join(
        f"{name}-worker-{i} slots={slots}\n" for i in range(workers))
    extras["configMap"] = {"name": f"{name}-config", "hostfile": hostfile}
    extras["services"] = []
    cites += [T_HOSTFILE, T_GPU, T_NO_SERVICE] + ([T_HOSTFILE_GPU] if gpu else [])
    scheduler = to.gang(gang_scheduler)
    if scheduler is not None:
        minimum = as_int(as_map(run_policy.get("schedulingPolicy")).get("minAvailable"))
        extras["podGroup"] = {"kind": "volcano" if scheduler[1] else "scheduler-plugins",
                              "name": name, "minMember": workers + 1 if minimum is None
                              else minimum}
        cites += [to.C_GANG_ON, to.C_PG_MIN] + ([to.C_PG_MIN_SET] if minimum is not None else [])
    pods = [_v1_worker(name, as_map(worker), restart["Worker"], i, scheduler, cites)
            for i in range(workers)]
    pods.append(_v1_launcher(name, namespace, launcher, restart["Launcher"], gpu, scheduler,
                             cites))
    world = World("legacy", to.CONTROLLER, tuple(sorted(pods, key=_order)), extras,
                  tuple(dict.fromkeys(cites)))
    return world, _v1_reactor(restart, as_int(run_policy.get("backoffLimit"))), "", \
        to.cleanup(_v1_policy(spec, run_policy))


def _v1_policy(spec: Mapping[str, Any], run_policy: Mapping[str, Any]) -> Mapping[str, Any]:
    """runPolicy.cleanPodPolicy, else the deprecated spec.cleanPodPolicy (Reconcile syncs them)."""
    if as_str(run_policy.get("cleanPodPolicy")) is None and as_str(spec.get("cleanPodPolicy")):
        return {**run_policy, "cleanPodPolicy": spec.get("cleanPodPolicy")}
    return run_policy


def _gpu_key(key: str) -> bool:
    return key.endswith(".com/gpu") or "gpu" in key


def _validate_v1(spec: Mapping[str, Any], specs: Mapping[str, Any]) -> None:
    """``ValidateV1MpiJobSpec``: the controller refuses to reconcile an invalid job."""
    problems: list[tuple[str, Citation]] = []
    if not isinstance(spec.get("mpiReplicaSpecs"), Mapping):
        problems.append(("mpiReplicaSpecs is missing", T_VALIDATE))
    for rtype, value in specs.items():
        items = containers(as_map(as_map(as_map(value).get("template")).get("spec")))
        if not items:
            problems.append((f"{rtype} has no containers", T_VALIDATE_CONTAINERS))
        if rtype not in ("Launcher", "Worker"):
            problems.append((f"replica type {rtype!r} is not Launcher or Worker",
                             T_VALIDATE_TYPES))
        if any(not as_str(item.get("image")) or not as_str(item.get("name")) for item in items):
            problems.append((f"{rtype}: a container lacks an image or a name", T_VALIDATE_IMAGE))
        replicas = as_int(as_map(value).get("replicas"))
        if rtype == "Launcher" and replicas is not None and replicas != 1:
            problems.append(("Launcher replicas must be 1", T_VALIDATE_ONE))
    if "Launcher" not in specs:
        problems.append(("a Launcher replica spec is required", T_VALIDATE))
    if problems:
        raise Rejected([f"training-operator refuses to reconcile the MPIJob: {reason}"
                        for reason, _ in problems], [c for _, c in problems])


def _v1_worker(name: str, worker: Mapping[str, Any], restart: str, index: int,
               scheduler: tuple[str, bool] | None, cites: list[Citation]) -> Pod:
    template = plain(as_map(worker.get("template")))
    if not isinstance(template.get("spec"), dict):
        template["spec"] = {}
    spec: dict[str, Any] = template["spec"]
    labels = _labels_of(template)
    labels.update({LABEL + "operator-name": "mpijob-controller", LABEL + "job-name": name,
                   LABEL + "replica-type": "worker", LABEL + "replica-index": str(index)})
    cites += [T_WORKER_NAME, T_TYPE_LABEL, T_INDEX]
    meta = template.setdefault("metadata", {})
    if isinstance(meta, dict):
        meta["labels"] = labels
    spec["restartPolicy"] = "Never" if restart == "ExitCode" else restart
    items = containers(spec)
    if items:
        first = items[0]
        if not first.get("command"):
            first["command"], first["args"] = ["sleep"], ["365d"]
            cites.append(T_SLEEP)
        _append(first, "volumeMounts", [{"name": "mpi-job-config", "mountPath": "/etc/mpi"}])
    _append(spec, "volumes", [{"name": "mpi-job-config", "configMap": {
        "name": f"{name}-config",
        "items": [{"key": "kubexec.sh", "path": "kubexec.sh", "mode": 0o555}]}}])
    if scheduler is not None:
        to.decorate(template, name, "worker", scheduler, cites)
        cites.append(T_DECORATE)
    host = f"{name}-worker-{index}"
    return Pod(f"node-{index}", "worker", index, host, _labels_of(template), spec)


def _v1_launcher(name: str, namespace: str, launcher: Mapping[str, Any], restart: str, gpu: bool,
                 scheduler: tuple[str, bool] | None, cites: list[Citation]) -> Pod:
    template = plain(as_map(launcher.get("template")))
    if not isinstance(template.get("spec"), dict):
        template["spec"] = {}
    spec: dict[str, Any] = template["spec"]
    host = f"{name}-launcher"
    labels = _labels_of(template)
    labels.update({LABEL + "operator-name": "mpijob-controller", LABEL + "job-name": name,
                   LABEL + "replica-type": "launcher", LABEL + "job-role": "master"})
    cites += [T_LAUNCHER_POD, T_ROLE]
    meta = template.setdefault("metadata", {})
    if isinstance(meta, dict):
        meta["labels"] = labels
    if scheduler is not None:
        to.decorate(template, name, "launcher", scheduler, cites)
    if not as_str(spec.get("serviceAccountName")):
        spec["serviceAccountName"] = host
        cites.append(T_SA)
    _append(spec, "initContainers", [{
        "name": "kubectl-delivery", "image": "ghcr.io/kubeflow/training-v1/kubectl-delivery:latest",
        "imagePullPolicy": "IfNotPresent",
        "env": [_env("TARGET_DIR", "/opt/kube"), _env("NAMESPACE", namespace)],
        "volumeMounts": [{"name": "mpi-job-kubectl", "mountPath": "/opt/kube"},
                         {"name": "mpi-job-config", "mountPath": "/etc/mpi"}],
        "resources": {key: {"cpu": "100m", "memory": "512Mi", "ephemeral-storage": "5Gi"}
                      for key in ("limits", "requests")}}])
    cites += [T_DELIVERY, T_DELIVERY_IMAGE]
    items = containers(spec)
    if items:
        first = items[0]
        env = [_env("OMPI_MCA_plm_rsh_agent", "/etc/mpi/kubexec.sh"),
               _env("OMPI_MCA_orte_default_hostfile", "/etc/mpi/hostfile")]
        cites.append(T_LAUNCHER_ENV)
        if not gpu:
            env += [_env("NVIDIA_VISIBLE_DEVICES", ""), _env("NVIDIA_DRIVER_CAPABILITIES", "")]
            cites.append(T_NVIDIA)
        names = {item.get("name") for item in as_map_list(first.get("env"))}
        if "I_MPI_HYDRA_BOOTSTRAP" not in names:
            env.append(_env("I_MPI_HYDRA_BOOTSTRAP", "rsh"))
        if "I_MPI_HYDRA_BOOTSTRAP_EXEC" not in names:
            env.append(_env("I_MPI_HYDRA_BOOTSTRAP_EXEC", "/etc/mpi/kubexec.sh"))
        cites.append(T_INTEL)
        _append(first, "env", env)
        _append(first, "volumeMounts", [{"name": "mpi-job-kubectl", "mountPath": "/opt/kube"},
                                        {"name": "mpi-job-config", "mountPath": "/etc/mpi"}])
    spec["restartPolicy"] = "Never" if restart == "ExitCode" else restart
    _append(spec, "volumes", [
        {"name": "mpi-job-kubectl", "emptyDir": {}},
        {"name": "mpi-job-config", "configMap": {"name": f"{name}-config", "items": [
            {"key": "kubexec.sh", "path": "kubexec.sh", "mode": 0o555},
            {"key": "hostfile", "path": "hostfile", "mode": 0o444},
            {"key": "discover_hosts.sh", "path": "discover_hosts.sh", "mode": 0o555}]}}])
    return Pod("launcher-0", "launcher", 0, host, _labels_of(template), spec)


def as_map_list(value: Any) -> list[Mapping[str, Any]]:
    return [item for item in value if isinstance(item, Mapping)] if isinstance(value, list) \
        else []


def _v1_reactor(restart: Mapping[str, str], backoff: int | None) -> React:
    def rtype_of(identity: str) -> str:
        return "Launcher" if identity == "launcher-0" else "Worker"

    def counted(identity: str) -> bool:
        return restart[rtype_of(identity)] in ("OnFailure", "Always", "ExitCode")

    def react(run: Run, event: Event) -> Reacted:
        state = run.pods[event.identity]
        rtype = rtype_of(event.identity)
        policy = "Never" if restart[rtype] == "ExitCode" else restart[rtype]
        if event.action == "exit" and policy in ("Always", "OnFailure") and \
                (event.code != 0 or policy == "Always"):
            state.restarts += 1
            why = (f"{event.identity} exited {event.code}; pod restartPolicy {policy}: the "
                   "kubelet restarts it in place")
            if backoff is None:
                return Reacted("restarted", "Running", why + "; no backoffLimit",
                               (to.C_RESTART_POD,))
            total = run.restarts_where(counted)
            cites = (to.C_PAST_BACKOFF, to.C_BACKOFF_TYPES, to.C_BACKOFF_RUNNING)
            if (backoff == 0 and total > 0) or (backoff > 0 and total >= backoff):
                return Reacted("restarted", "Failed", why + f"; restarts of running pods "
                               f"({total}) reach backoffLimit {backoff}: the operator deletes "
                               "every pod and fails the job", cites, cleaned=True)
            return Reacted("restarted", "Running", why + f"; restarts {total} < backoffLimit "
                           f"{backoff}", cites)
        if event.action == "exit" and event.code == 0:
            state.status = "succeeded"
            if rtype == "Launcher":
                return Reacted("kept", "Succeeded", "launcher-0 exited 0: the launcher pod "
                               "succeeded and so does the MPIJob", (T_SUCCEEDED,))
            return Reacted("kept", "Running", f"{event.identity} exited 0: the worker pod stays "
                           "succeeded; only the launcher's success ends the job", (T_SUCCEEDED,))
        state.status = "failed"
        cause = ("evicted (pod Failed)" if event.action == "evict"
                 else f"exited {event.code} under pod restartPolicy Never")
        if backoff == 0:
            return Reacted("kept", "Failed", f"{event.identity} {cause}; backoffLimit 0: a new "
                           "failed pod fails the job (work-queue requeues taken as 0); the "
                           "operator deletes every pod", (to.C_NEW_FAILURE,), cleaned=True)
        if restart[rtype] == "ExitCode":
            return Reacted("kept", "Running", f"{event.identity} {cause}; restartPolicy "
                           "ExitCode: the job is marked Restarting, but the MPI controller "
                           "never deletes a failed pod, so nothing replaces it",
                           (T_FAILED, T_NOT_RECREATED if rtype == "Worker" else T_DONE))
        return Reacted("kept", "Failed", f"{event.identity} {cause}: a failed {rtype} fails the "
                       "MPIJob", (T_FAILED,))

    return react
