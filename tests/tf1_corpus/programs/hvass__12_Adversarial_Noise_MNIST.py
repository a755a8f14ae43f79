# Source: https://github.com/Hvass-Labs/TensorFlow-Tutorials/blob/d5f33973570fe6ef9c78c8a38c7449a932c81010/12_Adversarial_Noise_MNIST.ipynb
# Changes: notebook code cells 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,56,57 joined in order; IPython magics commented out; the repository's mnist.MNIST (downloads MNIST) replaced by a stand-in class over synthetic data of the same shapes; sklearn's confusion_matrix replaced by a numpy stand-in; tf.contrib.layers.flatten -> tf.layers.flatten (contrib is not in TF 2); np.int -> int (NumPy 2); iterations cut (1000 -> 100, find_all_noise 300 -> 10, make_immune 500/200 -> 20/20) the two loops over all ten classes (cells 54-55) and the final reset of the noise with its printout (cells 58-60) left out; matplotlib is a no-op stub under the harness; the final accuracy and the noise's extent are kept for the metrics
# Metrics: final_acc, float(np.abs(get_noise()).max()), float(np.abs(get_noise()).mean())
# Tolerance: atol=0.1
# In[0]:
# corpus (IPython magic): %matplotlib inline
import matplotlib.pyplot as plt
import tensorflow as tf
import numpy as np
def confusion_matrix(y_true, y_pred):  # corpus: numpy stand-in for sklearn.metrics.confusion_matrix (sklearn is blocked in corpus runs)
    n = int(max(np.max(y_true), np.max(y_pred))) + 1
    cm = np.zeros((n, n), dtype=int)
    np.add.at(cm, (np.asarray(y_true), np.asarray(y_pred)), 1)
    return cm
import time
from datetime import timedelta
import math

# In[1]:
tf.__version__

# In[2]:
class MNIST:  # corpus: synthetic stand-in for the repository's mnist.MNIST (same attributes and dtypes), built on synthetic.read_data_sets
    img_size = 28
    img_size_flat = img_size * img_size
    img_shape = (img_size, img_size)
    num_channels = 1
    img_shape_full = (img_size, img_size, num_channels)
    num_classes = 10

    def __init__(self, data_dir=None):
        import synthetic
        d = synthetic.read_data_sets(data_dir)
        self.x_train = d.train.images.astype(np.float64)
        self.x_val = d.validation.images.astype(np.float64)
        self.x_test = d.test.images.astype(np.float64)
        self.y_train_cls = d.train.labels.astype(int)
        self.y_val_cls = d.validation.labels.astype(int)
        self.y_test_cls = d.test.labels.astype(int)
        self.num_train, self.num_val, self.num_test = len(self.x_train), len(self.x_val), len(self.x_test)
        self.y_train = np.eye(self.num_classes, dtype=float)[self.y_train_cls]
        self.y_val = np.eye(self.num_classes, dtype=float)[self.y_val_cls]
        self.y_test = np.eye(self.num_classes, dtype=float)[self.y_test_cls]

    def random_batch(self, batch_size=32):
        idx = np.random.randint(low=0, high=self.num_train, size=batch_size)
        return self.x_train[idx], self.y_train[idx], self.y_train_cls[idx]
data = MNIST(data_dir="data/MNIST/")

# In[3]:
print("Size of:")
print("- Training-set:\t\t{}".format(data.num_train))
print("- Validation-set:\t{}".format(data.num_val))
print("- Test-set:\t\t{}".format(data.num_test))

# In[4]:
# The number of pixels in each dimension of an image.
img_size = data.img_size

# The images are stored in one-dimensional arrays of this length.
img_size_flat = data.img_size_flat

# Tuple with height and width of images used to reshape arrays.
img_shape = data.img_shape

# Number of classes, one class for each of 10 digits.
num_classes = data.num_classes

# Number of colour channels for the images: 1 channel for gray-scale.
num_channels = data.num_channels

# In[5]:
def plot_images(images, cls_true, cls_pred=None, noise=0.0):
    assert len(images) == len(cls_true) == 9
    
    # Create figure with 3x3 sub-plots.
    fig, axes = plt.subplots(3, 3)
    fig.subplots_adjust(hspace=0.3, wspace=0.3)

    for i, ax in enumerate(axes.flat):
        # Get the i'th image and reshape the array.
        image = images[i].reshape(img_shape)
        
        # Add the adversarial noise to the image.
        image += noise
        
        # Ensure the noisy pixel-values are between 0 and 1.
        image = np.clip(image, 0.0, 1.0)

        # Plot image.
        ax.imshow(image,
                  cmap='binary', interpolation='nearest')

        # Show true and predicted classes.
        if cls_pred is None:
            xlabel = "True: {0}".format(cls_true[i])
        else:
            xlabel = "True: {0}, Pred: {1}".format(cls_true[i], cls_pred[i])

        # Show the classes as the label on the x-axis.
        ax.set_xlabel(xlabel)
        
        # Remove ticks from the plot.
        ax.set_xticks([])
        ax.set_yticks([])
    
    # Ensure the plot is shown correctly with multiple plots
    # in a single Notebook cell.
    plt.show()

# In[6]:
# Get the first images from the test-set.
images = data.x_test[0:9]

# Get the true classes for those images.
cls_true = data.y_test_cls[0:9]

# Plot the images and labels using our helper-function above.
plot_images(images=images, cls_true=cls_true)

# In[7]:
x = tf.placeholder(tf.float32, shape=[None, img_size_flat], name='x')

# In[8]:
x_image = tf.reshape(x, [-1, img_size, img_size, num_channels])

# In[9]:
y_true = tf.placeholder(tf.float32, shape=[None, num_classes], name='y_true')

# In[10]:
y_true_cls = tf.argmax(y_true, axis=1)

# In[11]:
noise_limit = 0.35

# In[12]:
noise_l2_weight = 0.02

# In[13]:
ADVERSARY_VARIABLES = 'adversary_variables'

# In[14]:
collections = [tf.GraphKeys.GLOBAL_VARIABLES, ADVERSARY_VARIABLES]

# In[15]:
x_noise = tf.Variable(tf.zeros([img_size, img_size, num_channels]),
                      name='x_noise', trainable=False,
                      collections=collections)

# In[16]:
x_noise_clip = tf.assign(x_noise, tf.clip_by_value(x_noise,
                                                   -noise_limit,
                                                   noise_limit))

# In[17]:
x_noisy_image = x_image + x_noise

# In[18]:
x_noisy_image = tf.clip_by_value(x_noisy_image, 0.0, 1.0)

# In[19]:
# Start the network with the noisy input image.
net = x_noisy_image

# 1st convolutional layer.
net = tf.layers.conv2d(inputs=net, name='layer_conv1', padding='same',
                       filters=16, kernel_size=5, activation=tf.nn.relu)
net = tf.layers.max_pooling2d(inputs=net, pool_size=2, strides=2)

# 2nd convolutional layer.
net = tf.layers.conv2d(inputs=net, name='layer_conv2', padding='same',
                       filters=36, kernel_size=5, activation=tf.nn.relu)
net = tf.layers.max_pooling2d(inputs=net, pool_size=2, strides=2)

# Flatten layer.This should eventually be replaced by:
# net = tf.layers.flatten(net)
net = tf.layers.flatten(net)

# 1st fully-connected / dense layer.
net = tf.layers.dense(inputs=net, name='layer_fc1',
                      units=128, activation=tf.nn.relu)

# 2nd fully-connected / dense layer.
net = tf.layers.dense(inputs=net, name='layer_fc_out',
                      units=num_classes, activation=None)

# Unscaled output of the network.
logits = net

# Softmax output of the network.
y_pred = tf.nn.softmax(logits=logits)

# Loss measure to be optimized.
cross_entropy = tf.nn.softmax_cross_entropy_with_logits_v2(labels=y_true,
                                                           logits=logits)
loss = tf.reduce_mean(cross_entropy)

# In[20]:
[var.name for var in tf.trainable_variables()]

# In[21]:
optimizer = tf.train.AdamOptimizer(learning_rate=1e-4).minimize(loss)

# In[22]:
adversary_variables = tf.get_collection(ADVERSARY_VARIABLES)

# In[23]:
[var.name for var in adversary_variables]

# In[24]:
l2_loss_noise = noise_l2_weight * tf.nn.l2_loss(x_noise)

# In[25]:
loss_adversary = loss + l2_loss_noise

# In[26]:
optimizer_adversary = tf.train.AdamOptimizer(learning_rate=1e-2).minimize(loss_adversary, var_list=adversary_variables)

# In[27]:
y_pred_cls = tf.argmax(y_pred, axis=1)

# In[28]:
correct_prediction = tf.equal(y_pred_cls, y_true_cls)

# In[29]:
accuracy = tf.reduce_mean(tf.cast(correct_prediction, tf.float32))

# In[30]:
session = tf.Session()

# In[31]:
session.run(tf.global_variables_initializer())

# In[32]:
def init_noise():
    session.run(tf.variables_initializer([x_noise]))

# In[33]:
init_noise()

# In[34]:
train_batch_size = 64

# In[35]:
def optimize(num_iterations, adversary_target_cls=None):
    # Start-time used for printing time-usage below.
    start_time = time.time()

    for i in range(num_iterations):

        # Get a batch of training examples.
        # x_batch now holds a batch of images and
        # y_true_batch are the true labels for those images.
        x_batch, y_true_batch, _ = data.random_batch(batch_size=train_batch_size)

        # If we are searching for the adversarial noise, then
        # use the adversarial target-class instead.
        if adversary_target_cls is not None:
            # The class-labels are One-Hot encoded.
            
            # Set all the class-labels to zero.
            y_true_batch = np.zeros_like(y_true_batch)

            # Set the element for the adversarial target-class to 1.
            y_true_batch[:, adversary_target_cls] = 1.0
            
        # Put the batch into a dict with the proper names
        # for placeholder variables in the TensorFlow graph.
        feed_dict_train = {x: x_batch,
                           y_true: y_true_batch}

        # If doing normal optimization of the neural network.
        if adversary_target_cls is None:
            # Run the optimizer using this batch of training data.
            # TensorFlow assigns the variables in feed_dict_train
            # to the placeholder variables and then runs the optimizer.
            session.run(optimizer, feed_dict=feed_dict_train)
        else:
            # Run the adversarial optimizer instead.
            # Note that we have 'faked' the class above to be
            # the adversarial target-class instead of the true class.
            session.run(optimizer_adversary, feed_dict=feed_dict_train)
            
            # Clip / limit the adversarial noise. This executes
            # another TensorFlow operation. It cannot be executed
            # in the same session.run() as the optimizer, because
            # it may run in parallel so the execution order is not
            # guaranteed. We need the clip to run after the optimizer.
            session.run(x_noise_clip)

        # Print status every 100 iterations.
        if (i % 100 == 0) or (i == num_iterations - 1):
            # Calculate the accuracy on the training-set.
            acc = session.run(accuracy, feed_dict=feed_dict_train)

            # Message for printing.
            msg = "Optimization Iteration: {0:>6}, Training Accuracy: {1:>6.1%}"

            # Print it.
            print(msg.format(i, acc))

    # Ending time.
    end_time = time.time()

    # Difference between start and end-times.
    time_dif = end_time - start_time

    # Print the time-usage.
    print("Time usage: " + str(timedelta(seconds=int(round(time_dif)))))

# In[36]:
def get_noise():
    # Run the TensorFlow session to retrieve the contents of
    # the x_noise variable inside the graph.
    noise = session.run(x_noise)

    return np.squeeze(noise)

# In[37]:
def plot_noise():
    # Get the adversarial noise from inside the TensorFlow graph.
    noise = get_noise()
    
    # Print statistics.
    print("Noise:")
    print("- Min:", noise.min())
    print("- Max:", noise.max())
    print("- Std:", noise.std())

    # Plot the noise.
    plt.imshow(noise, interpolation='nearest', cmap='seismic',
               vmin=-1.0, vmax=1.0)

# In[38]:
def plot_example_errors(cls_pred, correct):
    # This function is called from print_test_accuracy() below.

    # cls_pred is an array of the predicted class-number for
    # all images in the test-set.

    # correct is a boolean array whether the predicted class
    # is equal to the true class for each image in the test-set.

    # Negate the boolean array.
    incorrect = (correct == False)
    
    # Get the images from the test-set that have been
    # incorrectly classified.
    images = data.x_test[incorrect]
    
    # Get the predicted classes for those images.
    cls_pred = cls_pred[incorrect]

    # Get the true classes for those images.
    cls_true = data.y_test_cls[incorrect]

    # Get the adversarial noise from inside the TensorFlow graph.
    noise = get_noise()
    
    # Plot the first 9 images.
    plot_images(images=images[0:9],
                cls_true=cls_true[0:9],
                cls_pred=cls_pred[0:9],
                noise=noise)

# In[39]:
def plot_confusion_matrix(cls_pred):
    # This is called from print_test_accuracy() below.

    # cls_pred is an array of the predicted class-number for
    # all images in the test-set.

    # Get the true classifications for the test-set.
    cls_true = data.y_test_cls
    
    # Get the confusion matrix using sklearn.
    cm = confusion_matrix(y_true=cls_true,
                          y_pred=cls_pred)

    # Print the confusion matrix as text.
    print(cm)

# In[40]:
# Split the test-set into smaller batches of this size.
test_batch_size = 256

def print_test_accuracy(show_example_errors=False,
                        show_confusion_matrix=False):

    # Number of images in the test-set.
    num_test = data.num_test

    # Allocate an array for the predicted classes which
    # will be calculated in batches and filled into this array.
    cls_pred = np.zeros(shape=num_test, dtype=int)  # corpus: np.int is gone in NumPy 2

    # Now calculate the predicted classes for the batches.
    # We will just iterate through all the batches.
    # There might be a more clever and Pythonic way of doing this.

    # The starting index for the next batch is denoted i.
    i = 0

    while i < num_test:
        # The ending index for the next batch is denoted j.
        j = min(i + test_batch_size, num_test)

        # Get the images from the test-set between index i and j.
        images = data.x_test[i:j, :]

        # Get the associated labels.
        labels = data.y_test[i:j, :]

        # Create a feed-dict with these images and labels.
        feed_dict = {x: images,
                     y_true: labels}

        # Calculate the predicted class using TensorFlow.
        cls_pred[i:j] = session.run(y_pred_cls, feed_dict=feed_dict)

        # Set the start-index for the next batch to the
        # end-index of the current batch.
        i = j

    # Convenience variable for the true class-numbers of the test-set.
    cls_true = data.y_test_cls

    # Create a boolean array whether each image is correctly classified.
    correct = (cls_true == cls_pred)

    # Calculate the number of correctly classified images.
    # When summing a boolean array, False means 0 and True means 1.
    correct_sum = correct.sum()

    # Classification accuracy is the number of correctly classified
    # images divided by the total number of images in the test-set.
    acc = float(correct_sum) / num_test

    # Print the accuracy.
    msg = "Accuracy on Test-Set: {0:.1%} ({1} / {2})"
    print(msg.format(acc, correct_sum, num_test))

    # Plot some examples of mis-classifications, if desired.
    if show_example_errors:
        print("Example errors:")
        plot_example_errors(cls_pred=cls_pred, correct=correct)

    # Plot the confusion matrix, if desired.
    if show_confusion_matrix:
        print("Confusion Matrix:")
        plot_confusion_matrix(cls_pred=cls_pred)

# In[41]:
optimize(num_iterations=100)  # corpus: shortened

# In[42]:
print_test_accuracy(show_example_errors=True)

# In[43]:
init_noise()

# In[44]:
optimize(num_iterations=100, adversary_target_cls=3)  # corpus: shortened

# In[45]:
plot_noise()

# In[46]:
print_test_accuracy(show_example_errors=True,
                    show_confusion_matrix=True)

# In[47]:
def find_all_noise(num_iterations=1000):
    # Adversarial noise for all target-classes.
    all_noise = []

    # For each target-class.
    for i in range(num_classes):
        print("Finding adversarial noise for target-class:", i)

        # Reset the adversarial noise to zero.
        init_noise()

        # Optimize the adversarial noise.
        optimize(num_iterations=num_iterations,
                 adversary_target_cls=i)

        # Get the adversarial noise from inside the TensorFlow graph.
        noise = get_noise()

        # Append the noise to the array.
        all_noise.append(noise)

        # Print newline.
        print()
    
    return all_noise

# In[48]:
all_noise = find_all_noise(num_iterations=10)  # corpus: shortened

# In[49]:
def plot_all_noise(all_noise):    
    # Create figure with 10 sub-plots.
    fig, axes = plt.subplots(2, 5)
    fig.subplots_adjust(hspace=0.2, wspace=0.1)

    # For each sub-plot.
    for i, ax in enumerate(axes.flat):
        # Get the adversarial noise for the i'th target-class.
        noise = all_noise[i]
        
        # Plot the noise.
        ax.imshow(noise,
                  cmap='seismic', interpolation='nearest',
                  vmin=-1.0, vmax=1.0)

        # Show the classes as the label on the x-axis.
        ax.set_xlabel(i)

        # Remove ticks from the plot.
        ax.set_xticks([])
        ax.set_yticks([])
    
    # Ensure the plot is shown correctly with multiple plots
    # in a single Notebook cell.
    plt.show()

# In[50]:
plot_all_noise(all_noise)

# In[51]:
def make_immune(target_cls, num_iterations_adversary=20,  # corpus: shortened
                num_iterations_immune=20):

    print("Target-class:", target_cls)
    print("Finding adversarial noise ...")

    # Find the adversarial noise.
    optimize(num_iterations=num_iterations_adversary,
             adversary_target_cls=target_cls)

    # Newline.
    print()
    
    # Print classification accuracy.
    print_test_accuracy(show_example_errors=False,
                        show_confusion_matrix=False)

    # Newline.
    print()

    print("Making the neural network immune to the noise ...")

    # Try and make the neural network immune to this noise.
    # Note that the adversarial noise has not been reset to zero
    # so the x_noise variable still holds the noise.
    # So we are training the neural network to ignore the noise.
    optimize(num_iterations=num_iterations_immune)

    # Newline.
    print()
    
    # Print classification accuracy.
    print_test_accuracy(show_example_errors=False,
                        show_confusion_matrix=False)

# In[52]:
make_immune(target_cls=3)

# In[53]:
make_immune(target_cls=3)

# In[56]:
plot_noise()

# In[57]:
print_test_accuracy(show_example_errors=True,
                    show_confusion_matrix=True)


# corpus: the final test accuracy, kept for the metric
final_acc = session.run(accuracy, feed_dict={x: data.x_test, y_true: data.y_test})
print(final_acc)
